import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';

/** Logs when a shutdown starts (before the timeout handlers drain) and when it is done. */
@Injectable()
export class ShutdownLogger implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private startedAt = 0;

  /** First shutdown hook to log: the drain of running handlers follows. */
  beforeApplicationShutdown(signal?: string): void {
    this.startedAt = Date.now();
    this.logger.log(`orders shutting down${signal ? ` on ${signal}` : ''}`);
  }

  /** Last words of the instance. */
  onApplicationShutdown(): void {
    this.logger.log(`orders stopped after ${Date.now() - this.startedAt} ms of shutdown`);
  }
}
