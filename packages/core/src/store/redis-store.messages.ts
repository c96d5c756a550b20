/** Texts of the Redis store's errors and warnings, in one place. */
export const redisStoreMessages = {
  unavailable: (operation: string, timeoutMs: number, cause?: string) =>
    `Redis did not answer "${operation}" within ${timeoutMs} ms${cause ? ` (${cause})` : ''}. ` +
    'Check that Redis is running and reachable; the call may be retried (schedule is an upsert).',
  unreachable: (operation: string, cause: string) =>
    `Redis could not be reached for "${operation}": the connection failed (${cause}). ` +
    'Check that Redis is running and reachable, and the connection options (address, password, TLS); the call may be retried (schedule is an upsert).',
  unexpectedReply: (script: string, reply: unknown) =>
    `Unexpected reply from the "${script}" script: ${JSON.stringify(reply)?.slice(0, 200)}. ` +
    'The keys may have been written by another version of durable-timeout, or edited by hand.',
  invalidPrefix: (prefix: string) =>
    `Invalid key prefix "${prefix}": use 1 to 64 characters without "{", "}" or whitespace.`,
  noPersistence: (node: string) =>
    `Redis ${node} has no append-only file (aof_enabled:0): timeouts scheduled since the last RDB ` +
    'snapshot are lost if it crashes. Enable appendonly (appendfsync everysec or always) for durability.',
  evictingPolicy: (node: string, policy: string) =>
    `Redis ${node} runs maxmemory-policy ${policy}: when it reaches maxmemory it may evict pending timeouts ` +
    'or the fencing counters. Use noeviction (or a volatile-* policy) for the server that keeps timeouts.',
  connectionLost: (cause: string) =>
    `Lost the connection to Redis (${cause}); reconnecting. Schedules fail fast until it is back; workers resume by themselves.`,
  noClusterNode: () =>
    'No node of the Redis Cluster is known yet, so wake-ups cannot be subscribed to. Check that the cluster is reachable, then retry.',
  callbackFailed: (callback: string, cause: string) =>
    `The ${callback} callback given to subscribe() threw: ${cause}. The store keeps listening; fix the callback.`,
  invalidConnectionUrl: (url: string, problem: string, forms: string) =>
    `Invalid Redis connection URL "${url}": ${problem}. Use ${forms}.`,
  clusterNode: (node: string, evidence: string) =>
    `Redis at ${node} is a node of a Redis Cluster (${evidence}), but the connection talks to one server. ` +
    `Connect to the Cluster instead: connection: 'redis+cluster://${node}' (list two or three nodes, comma-separated; ` +
    `rediss+cluster:// for TLS), or { cluster: [{ host, port }, ...] }.`,
  closed: () => 'The Redis timeout store was closed; create a new one.',
  slotMoved: (slots: number) => `The slot was moved by a change of the topic's slot count: route the id by ${slots} slots.`,
  slotLocked: (slots: number) => `A change of the topic's slot count to ${slots} is moving this slot's timeouts; call again shortly.`,
} as const;
