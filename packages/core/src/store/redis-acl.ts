/**
 * The Redis commands the store sends, for a least-privilege ACL user. The scripts' own calls are
 * listed too: since Redis 7 every `redis.call` inside a script is checked against the caller's ACL.
 */
export const REDIS_STORE_COMMANDS = {
  /** Running the scripts: EVALSHA, and EVAL when the server does not have a script yet (NOSCRIPT). */
  scripts: ['evalsha', 'eval'],
  /** Called by the scripts. */
  insideScripts: [
    'time',
    'zadd',
    'zrem',
    'zrange',
    'zrangebyscore',
    'zscore',
    'zcard',
    'hget',
    'hset',
    'hsetnx',
    'hkeys',
    'hdel',
    'get',
    'set',
    'pexpire',
    'publish',
  ],
  /** Called by the store itself: server clock, liveness, wake-ups, clean close. */
  direct: ['time', 'ping', 'subscribe', 'unsubscribe', 'quit'],
  /**
   * The ioredis ready check and the store's persistence advice (`INFO persistence`). Optional: both
   * carry on when INFO is denied, but then the "no append-only file" warning cannot be given.
   */
  info: ['info'],
  /** The admin command line (`@durable-timeout/cli`) reads the topic registry `<prefix>:topics` (read-only key permission). */
  registry: ['hgetall'],
  /** Extra for a Redis Cluster: ioredis reads the slot map and the cluster state, and follows ASK redirects. */
  cluster: ['cluster|slots', 'cluster|info', 'asking'],
} as const;

/** Options of `aclRulesFor`. */
export interface AclRulesOptions {
  /** Add what an ioredis `Cluster` client needs (CLUSTER SLOTS / INFO, ASKING). Default false. */
  cluster?: boolean;
  /** Leave out INFO (see `REDIS_STORE_COMMANDS.info`). Default false. */
  withoutInfo?: boolean;
}

/**
 * The ACL rules of a least-privilege Redis user for the store under `prefix`: the keys of that
 * prefix only, its wake-up channels only, and only the commands the store sends. Use it as the tail
 * of `ACL SETUSER <name> on ><password> <rules>` (on every node of a cluster), e.g. for `dt`:
 *
 * `resetkeys resetchannels ~dt:{* ~dt:topics &dt:wake:* -@all +evalsha +eval +time +zadd ... +info +hgetall`
 *
 * The key patterns are narrower than `<prefix>:*`: every key of the store is
 * `<prefix>:{<topic>:<slot>}:...` or the registry of topic slot counts `<prefix>:topics`, so a user
 * of prefix `dt` cannot reach the keys of prefix `dt:x`.
 */
export function aclRulesFor(prefix: string, options: AclRulesOptions = {}): string {
  const pattern = escapeGlob(prefix);
  const commands = new Set<string>([
    ...REDIS_STORE_COMMANDS.scripts,
    ...REDIS_STORE_COMMANDS.insideScripts,
    ...REDIS_STORE_COMMANDS.direct,
    ...(options.withoutInfo ? [] : REDIS_STORE_COMMANDS.info),
    ...REDIS_STORE_COMMANDS.registry,
    ...(options.cluster ? REDIS_STORE_COMMANDS.cluster : []),
  ]);
  return ['resetkeys', 'resetchannels', `~${pattern}:{*`, `~${pattern}:topics`, `&${pattern}:wake:*`, '-@all', ...[...commands].map((name) => `+${name}`)].join(' ');
}

/** Escapes the characters Redis glob patterns treat specially, so the prefix matches itself only. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}
