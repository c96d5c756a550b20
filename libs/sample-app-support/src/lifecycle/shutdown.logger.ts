import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';

/** Injection token of the app's short name (`orders`, `rides`), used in its logs and connection names. */
export const APP_NAME = Symbol('APP_NAME');

/** Logs when a shutdown starts (before the timeout handlers drain) and when it is done. */
@Injectable()
export class ShutdownLogger implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private startedAt = 0;

  constructor(@Inject(APP_NAME) private readonly appName: string) {}

  /** First shutdown hook to log: the drain of running handlers follows. */
  beforeApplicationShutdown(signal?: string): void {
    this.startedAt = performance.now();
    this.logger.log(`${this.appName} shutting down${signal ? ` on ${signal}` : ''}`);
  }

  /** Last words of the instance. */
  onApplicationShutdown(): void {
    this.logger.log(`${this.appName} stopped after ${Math.round(performance.now() - this.startedAt)} ms of shutdown`);
  }
}
