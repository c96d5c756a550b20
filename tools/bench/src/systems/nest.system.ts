import 'reflect-metadata';
import { Inject, Injectable, Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DurableTimeoutModule, OnTimeout, TimeoutScheduler, type TimeoutEvent } from '@durable-timeout/nestjs';
import { PAYLOAD } from '../workloads.js';
import { BENCH_TOPIC, engineOptions, scheduleThrough, warmUp } from './engine.system.js';
import type { BenchSystem, FireSink, RedisTarget } from './system.js';

const FIRE_SINK = Symbol('FIRE_SINK');

/** The `@OnTimeout` provider of the worker application: records the handler start, nothing else. */
@Injectable()
export class BenchTimeoutHandler {
  constructor(@Inject(FIRE_SINK) private readonly sink: FireSink) {}

  /** Handles every benchmark timeout. */
  @OnTimeout(BENCH_TOPIC)
  onTimeout(event: TimeoutEvent): void {
    this.sink(event.id, event.dueAt);
  }
}

/** Root module of the benchmark's Nest applications. */
@Module({})
export class BenchNestModule {
  /** With `sink`, the worker application (a handler); without, the scheduling application. */
  static register(target: RedisTarget, prefix: string, sink?: FireSink): DynamicModule {
    return {
      module: BenchNestModule,
      imports: [DurableTimeoutModule.forRoot({ ...engineOptions(target, prefix), drainMs: 1_000 })],
      providers: sink ? [{ provide: FIRE_SINK, useValue: sink }, BenchTimeoutHandler] : [],
    };
  }
}

async function createApp(module: DynamicModule): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(module, { logger: false });
  app.enableShutdownHooks();
  return app;
}

/** durable-timeout through `@durable-timeout/nestjs`: `TimeoutScheduler` in one app, an `@OnTimeout` provider in the worker app. */
export const nestSystem: BenchSystem = {
  key: 'nest',
  usesRedis: true,
  async openScheduler(target, prefix) {
    const app = await createApp(BenchNestModule.register(target, prefix));
    const timeouts = app.get(TimeoutScheduler);
    await warmUp((id, at) => timeouts.schedule(BENCH_TOPIC, id, { at }), (id) => timeouts.cancel(BENCH_TOPIC, id));
    return {
      scheduleAll: (plan) => scheduleThrough((id, at) => timeouts.schedule(BENCH_TOPIC, id, { at, payload: PAYLOAD }), plan),
      close: () => app.close(),
    };
  },
  async openWorker(target, settings, sink) {
    const app = await createApp(BenchNestModule.register(target, settings.prefix, sink));
    return { stop: () => app.close() };
  },
};
