// The part of two packages that docs/MIGRATING.md shows "before" code for, and that this
// repository does not install: `@nestjs/schedule` (SchedulerRegistry, @Timeout) and
// `@nestjs/bullmq` (BullModule, @Processor, WorkerHost, @InjectQueue). Declared as those packages
// publish them (only what the guide uses), so the guide's before-and-after blocks compile.
declare module '@nestjs/schedule' {
  import type { DynamicModule } from '@nestjs/common';
  export class SchedulerRegistry {
    addTimeout(name: string, timeoutId: ReturnType<typeof setTimeout>): void;
    deleteTimeout(name: string): void;
    doesExist(type: 'cron' | 'timeout' | 'interval', name: string): boolean;
    getTimeouts(): string[];
  }
  export function Timeout(name: string, timeout: number): MethodDecorator;
  export function Timeout(timeout: number): MethodDecorator;
  export class ScheduleModule {
    static forRoot(): DynamicModule;
  }
}

declare module '@nestjs/bullmq' {
  import type { DynamicModule } from '@nestjs/common';
  import type { ConnectionOptions, Job } from 'bullmq';
  export class BullModule {
    static forRoot(options: { connection: ConnectionOptions }): DynamicModule;
    static registerQueue(...queues: { name: string }[]): DynamicModule;
  }
  export function InjectQueue(name?: string): ParameterDecorator;
  export function Processor(queueName: string): ClassDecorator;
  export abstract class WorkerHost {
    abstract process(job: Job, token?: string): Promise<unknown>;
  }
}
