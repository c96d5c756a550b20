/** The systems the benchmark compares, by the names used in the table and the JSON. */
export const SYSTEM = {
  engine: 'durable-timeout',
  nest: 'durable-timeout (nestjs)',
  cluster: 'durable-timeout (cluster, 3 masters)',
  bullmq: 'bullmq',
  memory: 'setTimeout (memory)',
  polling: 'polling 1s (SET NX + ZREM)',
  metricsOff: 'durable-timeout, metrics off',
  metricsApi: 'durable-timeout, metrics API, no SDK',
  metricsSdk: 'durable-timeout, metrics + OTel SDK',
  rateLimitOff: 'durable-timeout, no rate limit',
  rateLimitOn: 'durable-timeout, rateLimit never reached',
} as const;

/** The three runs of the metrics cost comparison (`--only metrics`), in the order they run. */
export const METRICS_SYSTEMS = ['metricsOff', 'metricsApi', 'metricsSdk'] as const satisfies readonly SystemKey[];

/** The two runs of the rate limit cost comparison (`--only rate-limit`), alternated in this order. */
export const RATE_LIMIT_SYSTEMS = ['rateLimitOff', 'rateLimitOn'] as const satisfies readonly SystemKey[];

/** Key of a system in `SYSTEM`; also what the worker process is told to run. */
export type SystemKey = keyof typeof SYSTEM;
