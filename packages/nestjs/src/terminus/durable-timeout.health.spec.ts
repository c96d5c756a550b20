import { describe, expect, it } from '@jest/globals';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { DurableTimeouts, HealthSnapshot, TopicStats } from '@durable-timeout/core';
import { createTestingTimeouts } from '@durable-timeout/core/testing';
import { settingsOf } from '../durable-timeout.settings.js';
import { DurableTimeoutHealthIndicator } from './durable-timeout.health.js';

const healthy: HealthSnapshot = { redisLatencyMs: 1, running: true, maxPollerIdleMs: 50, inFlight: 2, pausedTopics: [] };

function indicator(options: {
  health?: () => Promise<HealthSnapshot>;
  stats?: (topic: string) => Promise<TopicStats>;
  commandTimeoutMs?: number;
}): DurableTimeoutHealthIndicator {
  const engine = {
    health: options.health ?? (async () => healthy),
    stats: options.stats ?? (async (topic: string) => ({ topic, pending: 1, firing: 0, dead: 0, oldestOverdueMs: 0, paused: false })),
  };
  const settings = settingsOf(
    createTestingTimeouts({ topics: { payment: {}, ride: {} }, sweepIntervalMs: 1_000, commandTimeoutMs: options.commandTimeoutMs ?? 1_000 }).timeouts,
  );
  return new DurableTimeoutHealthIndicator(engine as unknown as DurableTimeouts, settings, new HealthIndicatorService());
}

describe('DurableTimeoutHealthIndicator', () => {
  it('is up with latency, poller idle time, in-flight count and per-topic figures', async () => {
    const result = await indicator({}).isHealthy();
    expect(result).toEqual({
      'durable-timeout': {
        status: 'up',
        redisLatencyMs: 1,
        running: true,
        maxPollerIdleMs: 50,
        inFlight: 2,
        pausedTopics: [],
        topics: {
          payment: { pending: 1, firing: 0, dead: 0, oldestOverdueMs: 0 },
          ride: { pending: 1, firing: 0, dead: 0, oldestOverdueMs: 0 },
        },
      },
    });
  });

  it('is down when Redis does not answer', async () => {
    const result = await indicator({ health: async () => ({ ...healthy, redisLatencyMs: null }) }).isHealthy('dt');
    expect(result['dt']).toMatchObject({ status: 'down', redisLatencyMs: null, message: expect.stringContaining('Redis did not answer') });
  });

  it('is down when a poller has stalled past twice the sweep interval (or the given limit)', async () => {
    const stalled = indicator({ health: async () => ({ ...healthy, maxPollerIdleMs: 2_001 }) });
    expect((await stalled.isHealthy())['durable-timeout'].status).toBe('down');
    expect((await stalled.isHealthy('k', { maxPollerIdleMs: 5_000 }))['k'].status).toBe('up');
  });

  it('ignores poller idle time when this instance runs no pollers', async () => {
    const idle = indicator({ health: async () => ({ ...healthy, running: false, maxPollerIdleMs: null }) });
    expect((await idle.isHealthy())['durable-timeout'].status).toBe('up');
  });

  it('is down when a checked topic has an overdue timeout older than maxOverdueMs', async () => {
    const late = indicator({
      stats: async (topic) => ({ topic, pending: 5, firing: 0, dead: 0, oldestOverdueMs: topic === 'ride' ? 90_000 : 0, paused: false }),
    });
    const down = (await late.isHealthy())['durable-timeout'];
    expect(down).toMatchObject({ status: 'down', message: expect.stringContaining("'ride' is 90000 ms late (limit 60000 ms)") });
    expect((await late.isHealthy('k', { maxOverdueMs: 120_000 }))['k'].status).toBe('up');
    expect((await late.isHealthy('k', { topics: ['payment'] }))['k'].status).toBe('up');
  });

  it('reports paused topics, whose overdue timeouts wait on purpose and do not make it down', async () => {
    const paused = indicator({
      stats: async (topic) => ({ topic, pending: 5, firing: 0, dead: 0, oldestOverdueMs: topic === 'ride' ? 90_000 : 0, paused: topic === 'ride' }),
    });
    expect((await paused.isHealthy())['durable-timeout']).toMatchObject({ status: 'up', pausedTopics: ['ride'] });
  });

  it('never throws: a failing or hanging check is reported as down', async () => {
    const failing = indicator({
      stats: async () => {
        throw new Error('connection lost');
      },
    });
    expect((await failing.isHealthy())['durable-timeout']).toEqual({
      status: 'down',
      message: expect.stringContaining('connection lost'),
    });
    const hanging = indicator({ health: () => new Promise<HealthSnapshot>(() => undefined), commandTimeoutMs: 10 });
    expect((await hanging.isHealthy())['durable-timeout']).toEqual({
      status: 'down',
      message: expect.stringContaining('did not complete within'),
    });
  });
});
