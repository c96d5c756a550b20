import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { DurableTimeouts, type HealthSnapshot } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS } from '../durable-timeout.constants.js';
import type { DurableTimeoutSettings } from '../interfaces/durable-timeout-module-options.interface.js';
import { durableTimeoutHealthMessages } from './durable-timeout-health.messages.js';
import { HealthCheckDeadlineError } from './errors/health-check-deadline.error.js';

/** Thresholds of `DurableTimeoutHealthIndicator.isHealthy`. */
export interface DurableTimeoutHealthOptions {
  /** Down when a topic's oldest overdue timeout is later than this. Default 60,000 ms. */
  maxOverdueMs?: number;
  /**
   * Down when a running slot poller has not finished a claim cycle for this long. Default: twice
   * the module's `sweepIntervalMs` (a healthy idle poller completes a cycle at least once a sweep).
   */
  maxPollerIdleMs?: number;
  /** Topics whose overdue backlog is checked. Default: every configured topic. */
  topics?: readonly string[];
}

/** Per-topic figures in the indicator's details. */
export interface TopicHealthDetails {
  pending: number;
  firing: number;
  dead: number;
  oldestOverdueMs: number;
}

/** Details the indicator reports, up or down. */
export interface DurableTimeoutHealthDetails extends Record<string, unknown> {
  /** PING round trip, null when Redis did not answer. */
  redisLatencyMs: number | null;
  /** Whether this instance runs pollers. */
  running: boolean;
  /** Idle time of the poller most behind, null when not running. */
  maxPollerIdleMs: number | null;
  /** Handlers running now in this instance. */
  inFlight: number;
  /** Figures of each checked topic (absent when Redis is unreachable). */
  topics?: Record<string, TopicHealthDetails>;
  /**
   * The checked topics that are paused (`TimeoutScheduler.pause`; absent when Redis is
   * unreachable). Their overdue timeouts wait on purpose: they do not make the indicator down.
   */
  pausedTopics?: string[];
  /** Why the indicator is down. */
  message?: string;
}

/** Default `maxOverdueMs`. */
export const DEFAULT_MAX_OVERDUE_MS = 60_000;

/**
 * Terminus health indicator of durable timeouts. Down when Redis does not answer, when a slot
 * poller of this instance has stalled, or when a topic's oldest overdue timeout is older than the
 * threshold (a PING alone does not prove that timeouts fire); up otherwise. It never throws, and
 * it finishes within about twice the module's `commandTimeoutMs`.
 *
 * ```ts
 * @Get('health') @HealthCheck()
 * check() { return this.health.check([() => this.timeouts.isHealthy('durable-timeout', { maxOverdueMs: 30_000 })]); }
 * ```
 */
@Injectable()
export class DurableTimeoutHealthIndicator {
  constructor(
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
    @Inject(DURABLE_TIMEOUT_SETTINGS) private readonly settings: DurableTimeoutSettings,
    private readonly healthIndicatorService: HealthIndicatorService,
  ) {}

  /** Checks the engine; `key` names the entry in the health report. */
  async isHealthy<const Key extends string = 'durable-timeout'>(
    key: Key = 'durable-timeout' as Key,
    options: DurableTimeoutHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.healthIndicatorService.check(key);
    const deadlineMs = 2 * this.settings.commandTimeoutMs + 500;
    try {
      const details = await withDeadline(this.collect(options), deadlineMs);
      return details.message === undefined ? indicator.up(details) : indicator.down(details);
    } catch (error) {
      const message = error instanceof HealthCheckDeadlineError ? error.message : durableTimeoutHealthMessages.checkFailed(error);
      return indicator.down({ message });
    }
  }

  private async collect(options: DurableTimeoutHealthOptions): Promise<DurableTimeoutHealthDetails> {
    const maxOverdueMs = options.maxOverdueMs ?? DEFAULT_MAX_OVERDUE_MS;
    const maxPollerIdleMs = options.maxPollerIdleMs ?? 2 * this.settings.sweepIntervalMs;
    const snapshot: HealthSnapshot = await this.engine.health();
    const details: DurableTimeoutHealthDetails = {
      redisLatencyMs: snapshot.redisLatencyMs,
      running: snapshot.running,
      maxPollerIdleMs: snapshot.maxPollerIdleMs,
      inFlight: snapshot.inFlight,
    };
    if (snapshot.redisLatencyMs === null) {
      return { ...details, message: durableTimeoutHealthMessages.redisUnreachable(this.settings.commandTimeoutMs) };
    }
    const topics = options.topics ?? this.settings.topics;
    // One stats script per slot, which reads the slot's pause mark too.
    const stats = await Promise.all(topics.map((topic) => this.engine.stats(topic)));
    details.pausedTopics = stats.filter((topic) => topic.paused).map((topic) => topic.topic);
    details.topics = {};
    for (const { topic, pending, firing, dead, oldestOverdueMs } of stats) {
      details.topics[topic] = { pending, firing, dead, oldestOverdueMs };
    }
    if (snapshot.running && snapshot.maxPollerIdleMs !== null && snapshot.maxPollerIdleMs > maxPollerIdleMs) {
      return { ...details, message: durableTimeoutHealthMessages.pollerStalled(snapshot.maxPollerIdleMs, maxPollerIdleMs) };
    }
    const late = stats.find((topic) => topic.oldestOverdueMs > maxOverdueMs && !details.pausedTopics!.includes(topic.topic));
    if (late) return { ...details, message: durableTimeoutHealthMessages.overdue(late.topic, late.oldestOverdueMs, maxOverdueMs) };
    return details;
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthCheckDeadlineError(durableTimeoutHealthMessages.checkTimedOut(ms))), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
