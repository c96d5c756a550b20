/** Texts of the health indicator's `message` detail, built in one place. */
export const durableTimeoutHealthMessages = {
  redisUnreachable: (commandTimeoutMs: number): string =>
    `Redis did not answer a PING within ${commandTimeoutMs} ms: timeouts can be neither scheduled nor fired. Check the Redis server and the network.`,
  pollerStalled: (idleMs: number, limitMs: number): string =>
    `A slot poller has not finished a claim cycle for ${idleMs} ms (limit ${limitMs} ms): due timeouts are not being fired by this instance.`,
  overdue: (topic: string, overdueMs: number, limitMs: number): string =>
    `The oldest overdue timeout of '${topic}' is ${overdueMs} ms late (limit ${limitMs} ms): no instance fires that topic fast enough, or none handles it.`,
  checkFailed: (error: unknown): string =>
    `The health check failed: ${error instanceof Error ? error.message : String(error)}.`,
  checkTimedOut: (ms: number): string => `The health check did not complete within ${ms} ms: Redis is too slow or unreachable.`,
};
