import { InvalidConnectionError, maskPassword, parseConnectionUrl } from '@durable-timeout/core';
import { cliMessages } from './cli.messages.js';
import { UsageError } from './errors/usage.error.js';

/** The connection options of the command line, as commander read them. */
export interface ConnectionFlags {
  /** `--url` / `REDIS_URL`: any URL the engine takes (`redis://`, `redis+cluster://`, `redis+sentinel://`, `rediss...`). */
  url: string;
  /** Whether `--url` came from the command line (it wins over the others then), the environment, or its default. */
  urlSource: 'cli' | 'env' | 'default';
  /** `--cluster host:port,...`: some nodes of a Redis Cluster. */
  cluster?: string | undefined;
  /** `--sentinel host:port,...`: the Sentinel processes. */
  sentinel?: string | undefined;
  /** `--name`: the master name the sentinels monitor. */
  name?: string | undefined;
  /** `--tls`: TLS to every server. */
  tls?: boolean | undefined;
  /** `--user` / `REDIS_USER`: the ACL user. */
  user?: string | undefined;
  /** `--password` / `REDIS_PASSWORD`: its password. */
  password?: string | undefined;
}

/** The connection a command uses: a URL the engine's `parseConnectionUrl` reads, and how to show it. */
export interface ResolvedConnection {
  /** The URL, with the user, password and TLS of the flags applied. */
  url: string;
  /** The URL with its password masked, for messages. */
  shown: string;
}

/**
 * Turns the connection flags into one connection URL for the engine, so the command line reaches
 * every Redis the engine does, through the engine's own connection code: `--cluster` becomes
 * `redis+cluster://...`, `--sentinel ... --name` becomes `redis+sentinel://.../name`, `--tls` the
 * `rediss` scheme, and `--user` / `--password` the URL's login. Bad combinations and URLs the
 * engine cannot read are a `UsageError` naming the problem.
 */
export function resolveConnection(flags: ConnectionFlags): ResolvedConnection {
  const { cluster, sentinel, name } = flags;
  if (cluster !== undefined && sentinel !== undefined) throw new UsageError(cliMessages.oneConnection('--cluster', '--sentinel'));
  if ((cluster !== undefined || sentinel !== undefined) && flags.urlSource === 'cli') {
    throw new UsageError(cliMessages.oneConnection('--url', cluster !== undefined ? '--cluster' : '--sentinel'));
  }
  if (name !== undefined && sentinel === undefined) throw new UsageError(cliMessages.nameWithoutSentinel());
  let url: string;
  if (cluster !== undefined) url = `redis+cluster://${cluster}`;
  else if (sentinel !== undefined) {
    if (name === undefined) throw new UsageError(cliMessages.sentinelWithoutName());
    url = `redis+sentinel://${sentinel}/${encodeURIComponent(name)}`;
  } else url = flags.url;
  url = withLogin(flags.tls === true ? withTls(url) : url, flags.user, flags.password);
  try {
    parseConnectionUrl(url);
  } catch (error) {
    if (error instanceof InvalidConnectionError) throw new UsageError(error.message);
    throw error;
  }
  return { url, shown: maskPassword(url) };
}

/** The URL with the `rediss` scheme (TLS). */
function withTls(url: string): string {
  return url.replace(/^redis(\+cluster|\+sentinel)?:\/\//i, (_match, kind: string | undefined) => `rediss${kind ?? ''}://`);
}

/** The URL with `user` and `password` (when given) in place of the login it holds. */
function withLogin(url: string, user: string | undefined, password: string | undefined): string {
  if (user === undefined && password === undefined) return url;
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (match === null) return url;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const at = authority.lastIndexOf('@');
  const hosts = at >= 0 ? authority.slice(at + 1) : authority;
  const login = at >= 0 ? authority.slice(0, at) : '';
  const colon = login.indexOf(':');
  const givenUser = user !== undefined ? encodeURIComponent(user) : colon >= 0 ? login.slice(0, colon) : login;
  const givenPassword = password !== undefined ? encodeURIComponent(password) : colon >= 0 ? login.slice(colon + 1) : '';
  return `${scheme}${givenUser}${givenPassword !== '' ? `:${givenPassword}` : ''}@${hosts}${rest}`;
}
