import { BadRequestException, Inject, Injectable, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import {
  DurableTimeoutError,
  DurableTimeouts,
  SCHEDULES_TOPIC,
  UnknownTopicError,
  type DeadLetter,
  type RecurringScheduleInfo,
  type TimeoutInfo,
  type TopicSlotStats,
  type TopicStats,
} from '@durable-timeout/core';
import type { TopicPauseState, TopicResumeResult } from '@durable-timeout/core';
import { httpAnswerOf } from '../durable-timeout-http-errors.js';
import { DURABLE_TIMEOUTS } from '../durable-timeout.constants.js';
import { DURABLE_TIMEOUT_ADMIN_SETTINGS } from './durable-timeout-admin.constants.js';
import { adminMessages } from './durable-timeout-admin.messages.js';
import type { DurableTimeoutAdminSettings } from './durable-timeout-admin-options.interface.js';

/** A pending or firing timeout as the page shows it: the payload only when payloads are enabled. */
export type AdminTimeout = Omit<TimeoutInfo, 'payload'> & { payload?: TimeoutInfo['payload'] };

/** A dead letter as the page shows it: the payload only when payloads are enabled. */
export type AdminDeadLetter = Omit<DeadLetter, 'payload'> & { payload?: DeadLetter['payload'] };

/** A recurring schedule as the page shows it (`schedules.list`): the payload only when payloads are enabled. */
export type AdminSchedule = Omit<RecurringScheduleInfo, 'payload'> & { payload?: RecurringScheduleInfo['payload'] };

/** One topic in detail: its totals, every slot, and whether it is paused. */
export interface AdminTopicDetail extends TopicStats {
  perSlot: TopicSlotStats[];
  paused: boolean;
  /** When it was paused (ms since the epoch, Redis clock), or null. */
  pausedAt: number | null;
}

/**
 * What the admin page and its API read and change, through the engine's public methods only: counts
 * per topic and per slot, pages of pending timeouts and dead letters (never whole sets), and the
 * recurring schedules (`schedules.list`, every schedule: they are few). Engine
 * errors become HTTP errors: unknown topic 404, bad input 400, Redis unavailable 503.
 */
@Injectable()
export class DurableTimeoutAdminService {
  constructor(
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
    @Inject(DURABLE_TIMEOUT_ADMIN_SETTINGS) private readonly settings: DurableTimeoutAdminSettings,
  ) {}

  /** The engine's topics, in the order configured. */
  get topics(): string[] {
    return this.engine.topics;
  }

  /** Totals of every topic. */
  overview(): Promise<TopicStats[]> {
    return asHttp(() => Promise.all(this.engine.topics.map((topic) => this.engine.stats(topic))));
  }

  /** One topic: totals and slots. */
  topic(topic: string): Promise<AdminTopicDetail> {
    return asHttp(async () => {
      const [stats, perSlot, pause] = await Promise.all([this.engine.stats(topic), this.engine.slotStats(topic), this.engine.pauseState(topic)]);
      return { ...stats, perSlot, paused: pause.paused, pausedAt: pause.pausedAt };
    });
  }

  /** A page of the next due timeouts of a topic. */
  pending(topic: string, offset: number, limit: number): Promise<AdminTimeout[]> {
    return asHttp(async () => (await this.engine.listPending(topic, { offset, limit })).map((info) => this.hidePayload(info)));
  }

  /** A page of the dead letters of a topic, oldest first. */
  dead(topic: string, offset: number, limit: number): Promise<AdminDeadLetter[]> {
    return asHttp(async () => (await this.engine.listDead(topic, { offset, limit })).map((letter) => this.hidePayload(letter)));
  }

  /** Replays the chosen dead letters (all when `ids` is undefined); returns how many. */
  replay(topic: string, ids: readonly string[] | undefined): Promise<number> {
    return asHttp(() => this.engine.replayDead(topic, ids));
  }

  /** Purges the chosen dead letters (all when `ids` is undefined); returns how many. */
  purge(topic: string, ids: readonly string[] | undefined): Promise<number> {
    return asHttp(() => this.engine.purgeDead(topic, ids));
  }

  /** Whether the application has recurring schedules: its engine declares the schedules topic. */
  get hasSchedules(): boolean {
    return this.engine.topics.includes(SCHEDULES_TOPIC);
  }

  /** Every recurring schedule, by name; 404 when the application declares no schedules topic. */
  schedules(): Promise<AdminSchedule[]> {
    return asHttp(async () => {
      this.requireSchedules();
      return (await this.engine.schedules.list()).map((schedule) => this.hidePayload(schedule));
    });
  }

  /** Removes a recurring schedule (`schedules.remove`): no occurrence of it fires afterwards. True when it existed. */
  removeSchedule(name: string): Promise<boolean> {
    return asHttp(async () => {
      this.requireSchedules();
      return this.engine.schedules.remove(name);
    });
  }

  /** Pauses a topic on every instance. */
  pause(topic: string): Promise<TopicPauseState> {
    return asHttp(() => this.engine.pause(topic));
  }

  /** Resumes a paused topic, shifting its pending due times by the pause when `shift` is true. */
  resume(topic: string, shift: boolean): Promise<TopicResumeResult> {
    return asHttp(() => this.engine.resume(topic, { shift }));
  }

  private requireSchedules(): void {
    if (!this.hasSchedules) throw new NotFoundException(adminMessages.noSchedules(SCHEDULES_TOPIC));
  }

  private hidePayload<T extends { payload: unknown }>(record: T): Omit<T, 'payload'> & { payload?: T['payload'] } {
    if (this.settings.showPayloads) return record;
    const { payload: _hidden, ...rest } = record;
    return rest;
  }
}

async function asHttp<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UnknownTopicError) throw new NotFoundException(adminMessages.unknownTopic(error.topic, error.known));
    // The page is for operators: a retryable error keeps its own message (the Redis details help them).
    if (httpAnswerOf(error) === 'retry') throw new ServiceUnavailableException((error as Error).message);
    if (error instanceof DurableTimeoutError) throw new BadRequestException(error.message);
    throw error;
  }
}
