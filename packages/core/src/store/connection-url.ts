import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { ConnectionOptions } from './connection-options.js';
import { InvalidConnectionError } from './invalid-connection.error.js';
import { redisStoreMessages } from './redis-store.messages.js';

/**
 * Connection URLs for a Redis Cluster and for Sentinel, so one string (an environment variable, a
 * `ConfigService` value) can describe any Redis the engine reaches:
 *
 * - `redis://[user:password@]host:6379[/db]`, `rediss://...` (TLS): one server, read by ioredis.
 * - `redis+cluster://[user:password@]host:port,host:port,...`: a Redis Cluster, by some of its
 *   nodes (the client learns the others). `rediss+cluster://` for TLS.
 * - `redis+sentinel://[user:password@]host:port,host:port,.../mastername[/db]`: the primary that
 *   the listed Sentinel processes monitor under `mastername`. `rediss+sentinel://` for TLS (to the
 *   sentinels and the servers). `?sentinelUsername=...&sentinelPassword=...` when the sentinels
 *   have their own login.
 *
 * The user and password (percent-encoded in the URL) are those of the Redis servers.
 */

/** How the scheme names a connection kind. */
const SCHEME = /^(rediss?)\+(cluster|sentinel):\/\/(.*)$/is;
const PLAIN_SCHEME = /^(rediss?|redis\+unix|unix):/i;
const HOST_PORT = /^(?:\[([0-9a-f:.]+)\]|([^\s:[\]/?#@,]+))(?::(\d{1,5}))?$/i;
const DEFAULT_PORTS = { cluster: 6379, sentinel: 26379 } as const;

/** The forms of the connection URLs, for messages. */
export const CONNECTION_URL_FORMS =
  'redis://[user:password@]host:6379[/db] for one server, redis+cluster://[user:password@]host:port,host:port for a Cluster, ' +
  'redis+sentinel://[user:password@]host:26379,host:26379/mastername for Sentinel (rediss... for TLS)';

/** A host and port of a URL's host list. */
export interface HostAndPort {
  /** Host name or IP address (an IPv6 address without its brackets). */
  host: string;
  /** TCP port. */
  port: number;
}

/**
 * Reads a connection URL (see the forms above) into the `connection` option the engine takes:
 * a `redis://` or `rediss://` URL is returned as it is (ioredis reads it), a `redis+cluster://`
 * URL becomes `{ cluster: [...], options }`, a `redis+sentinel://` URL becomes ioredis options
 * with `sentinels` and `name`. Throws `InvalidConnectionError` naming the part that is wrong.
 */
export function parseConnectionUrl(url: string): ConnectionOptions {
  const shown = maskPassword(url);
  const fail = (problem: string): never => {
    throw new InvalidConnectionError(redisStoreMessages.invalidConnectionUrl(shown, problem, CONNECTION_URL_FORMS), shown, 'url');
  };
  if (typeof url !== 'string' || url.trim() === '') return fail('it is empty');
  const match = SCHEME.exec(url.trim());
  if (match === null) {
    if (PLAIN_SCHEME.test(url.trim())) return url;
    return fail(`the scheme "${url.split(':')[0]}" is not one of redis, rediss, redis+cluster, rediss+cluster, redis+sentinel, rediss+sentinel`);
  }
  const tls = match[1]!.toLowerCase() === 'rediss';
  const kind = match[2]!.toLowerCase() as 'cluster' | 'sentinel';
  let rest = match[3]!;
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) rest = rest.slice(0, hashAt);
  const queryAt = rest.indexOf('?');
  const query = new URLSearchParams(queryAt >= 0 ? rest.slice(queryAt + 1) : '');
  if (queryAt >= 0) rest = rest.slice(0, queryAt);
  const pathAt = rest.indexOf('/');
  const path = pathAt >= 0 ? rest.slice(pathAt + 1) : '';
  const authority = pathAt >= 0 ? rest.slice(0, pathAt) : rest;
  const userAt = authority.lastIndexOf('@');
  const login = userAt >= 0 ? readLogin(authority.slice(0, userAt), fail) : {};
  const hosts = readHosts(userAt >= 0 ? authority.slice(userAt + 1) : authority, DEFAULT_PORTS[kind], fail);
  const segments = path === '' ? [] : path.split('/');

  if (kind === 'cluster') {
    if (segments.length > 1 || (segments.length === 1 && segments[0] !== '' && segments[0] !== '0')) {
      fail(`a Redis Cluster has only database 0, so the URL takes no path ("/${path}")`);
    }
    for (const key of query.keys()) fail(`unknown parameter "${key}" (a Cluster URL takes none)`);
    const redisOptions: RedisOptions = { ...login, ...(tls ? { tls: {} } : {}) };
    const options: ClusterOptions = { redisOptions };
    return { cluster: hosts, options };
  }

  const [name, db, ...extra] = segments;
  if (name === undefined || name === '') fail('the master name is missing: write it as the path, e.g. redis+sentinel://host:26379/mymaster');
  if (extra.length > 0) fail(`the path "/${path}" has more than the master name and a database number`);
  const options: RedisOptions = { sentinels: hosts, name: decodeURIComponent(name!), ...login };
  if (db !== undefined && db !== '') {
    if (!/^\d{1,5}$/.test(db)) fail(`the database "${db}" is not a number`);
    options.db = Number(db);
  }
  for (const [key, value] of query) {
    if (key === 'sentinelUsername') options.sentinelUsername = value;
    else if (key === 'sentinelPassword') options.sentinelPassword = value;
    else fail(`unknown parameter "${key}" (a Sentinel URL takes sentinelUsername and sentinelPassword)`);
  }
  if (tls) Object.assign(options, { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true });
  return options;
}

/** True when `url` uses the Cluster or Sentinel scheme of `parseConnectionUrl`. */
export function isMultiHostUrl(url: string): boolean {
  return SCHEME.test(url.trim());
}

/** The URL with its password replaced by `***`, for messages and logs. */
export function maskPassword(url: string): string {
  if (typeof url !== 'string') return String(url);
  return url.replace(/^([a-z+]+:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

function readLogin(userInfo: string, fail: (problem: string) => never): { username?: string; password?: string } {
  const colon = userInfo.indexOf(':');
  const decode = (part: string, what: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      return fail(`the ${what} is not percent-encoded correctly`);
    }
  };
  const username = decode(colon >= 0 ? userInfo.slice(0, colon) : userInfo, 'user name');
  const password = colon >= 0 ? decode(userInfo.slice(colon + 1), 'password') : undefined;
  return { ...(username !== '' ? { username } : {}), ...(password !== undefined && password !== '' ? { password } : {}) };
}

function readHosts(list: string, defaultPort: number, fail: (problem: string) => never): HostAndPort[] {
  if (list.trim() === '') return fail('no host: list at least one host:port');
  return list.split(',').map((entry) => {
    const match = HOST_PORT.exec(entry.trim());
    if (match === null) return fail(`"${entry}" is not a host or host:port`);
    const port = match[3] === undefined ? defaultPort : Number(match[3]);
    if (port < 1 || port > 65_535) fail(`the port of "${entry}" is not from 1 to 65535`);
    return { host: match[1] ?? match[2]!, port };
  });
}
