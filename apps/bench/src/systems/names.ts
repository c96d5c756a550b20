/** The systems the benchmark compares, by the names used in the table and the JSON. */
export const SYSTEM = {
  engine: 'durable-timeout',
  nest: 'durable-timeout (nestjs)',
  cluster: 'durable-timeout (cluster, 3 masters)',
  bullmq: 'bullmq',
  memory: 'setTimeout (memory)',
  polling: 'polling 1s (SET NX + ZREM)',
} as const;

/** Key of a system in `SYSTEM`; also what the worker process is told to run. */
export type SystemKey = keyof typeof SYSTEM;
