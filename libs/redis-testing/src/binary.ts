import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

let cached: string | undefined;

function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * Path of the system `redis-server` binary (the `REDIS_SERVER_BINARY` environment variable wins).
 * Throws with install instructions when there is none: the throwaway servers are real Redis.
 */
export function redisServerBinary(): string {
  if (cached) return cached;
  const found = process.env.REDIS_SERVER_BINARY ?? findOnPath('redis-server');
  if (!found || spawnSync(found, ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      'redis-server was not found on the PATH. Install Redis 7 or newer ' +
        '(Debian/Ubuntu: `sudo apt-get install -y redis-server`, macOS: `brew install redis`) ' +
        'or set REDIS_SERVER_BINARY to its path.',
    );
  }
  cached = found;
  return found;
}

/** Path of `redis-cli`, needed to form a cluster. Throws with install instructions when missing. */
export function redisCliBinary(): string {
  const found = process.env.REDIS_CLI_BINARY ?? findOnPath('redis-cli');
  if (!found) {
    throw new Error('redis-cli was not found on the PATH. Install it with Redis (Debian/Ubuntu: `sudo apt-get install -y redis-tools`).');
  }
  return found;
}

/**
 * How to start a Sentinel: `redis-sentinel` (Debian's `redis-sentinel` package) when it is on the
 * PATH or named by `REDIS_SENTINEL_BINARY`, else `redis-server` with `--sentinel`, which is the
 * same program in Sentinel mode. The config file goes between `command` and `modeArgs`.
 */
export function redisSentinelCommand(): { command: string; modeArgs: string[] } {
  const sentinel = process.env.REDIS_SENTINEL_BINARY ?? findOnPath('redis-sentinel');
  if (sentinel) return { command: sentinel, modeArgs: [] };
  return { command: redisServerBinary(), modeArgs: ['--sentinel'] };
}
