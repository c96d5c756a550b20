import { createHash } from 'node:crypto';
import { DATA_BUCKETS } from '../store/slot-of.js';
import { LUA_FILES } from './lua-files.generated.js';

/**
 * Data bucket keys a `few` call passes: the buckets it needs, padded with repeats. Small calls are
 * the common case (a claim or an ack of a few timeouts); sending all 128 bucket keys on each cost
 * most of the client's and the server's CPU (docs/REDIS-LAYOUT.md, "Per-call cost").
 */
export const FEW_BUCKETS = 8;

/**
 * What a script takes after its fixed keys: nothing, every data bucket key of the slot in bucket
 * order (`buckets`), or `FEW_BUCKETS` chosen bucket keys (`few`). Every script has a fixed key
 * count: ioredis auto-pipelining on a `Cluster` groups a command by its first argument, which must
 * therefore be a key, never a key count (with a variable count, commands of different shards met
 * in one pipeline and ioredis refused it: "All keys in the pipeline should belong to the same
 * slots allocation group"). A script with two tails is registered twice, under two names.
 * The one exception, `variable`, is a script that takes any number of keys (the call passes their
 * count first) and is never sent to a Cluster: `claimMany`, the calls of several slots of one server.
 */
type KeyTail = 'none' | 'buckets' | 'few' | 'variable';

interface ScriptSpec {
  /** Base name of the Lua file (named by what the script does). */
  file: string;
  /** Keys every call passes before the tail. */
  fixedKeys: number;
  tail: KeyTail;
}

const SCRIPTS = {
  schedule: { file: 'schedule', fixedKeys: 4, tail: 'buckets' },
  scheduleFew: { file: 'schedule', fixedKeys: 4, tail: 'few' },
  cancel: { file: 'cancel', fixedKeys: 4, tail: 'none' },
  cancelMany: { file: 'cancel-many', fixedKeys: 3, tail: 'buckets' },
  cancelManyFew: { file: 'cancel-many', fixedKeys: 3, tail: 'few' },
  get: { file: 'get', fixedKeys: 5, tail: 'none' },
  claim: { file: 'claim', fixedKeys: 6, tail: 'buckets' },
  claimFew: { file: 'claim', fixedKeys: 6, tail: 'few' },
  claimMany: { file: 'claim-many', fixedKeys: 0, tail: 'variable' },
  ack: { file: 'ack', fixedKeys: 3, tail: 'none' },
  ackNext: { file: 'ack-next', fixedKeys: 4, tail: 'none' },
  ackMany: { file: 'ack-many', fixedKeys: 2, tail: 'buckets' },
  ackManyFew: { file: 'ack-many', fixedKeys: 2, tail: 'few' },
  fail: { file: 'fail', fixedKeys: 5, tail: 'none' },
  renewLeases: { file: 'renew-leases', fixedKeys: 2, tail: 'buckets' },
  renewLeasesFew: { file: 'renew-leases', fixedKeys: 2, tail: 'few' },
  release: { file: 'release', fixedKeys: 3, tail: 'buckets' },
  stats: { file: 'stats', fixedKeys: 4, tail: 'none' },
  deadList: { file: 'dead-list', fixedKeys: 1, tail: 'buckets' },
  deadReplay: { file: 'dead-replay', fixedKeys: 3, tail: 'buckets' },
  deadPurge: { file: 'dead-purge', fixedKeys: 2, tail: 'buckets' },
  layoutRegistry: { file: 'layout-registry', fixedKeys: 1, tail: 'none' },
  layoutMark: { file: 'layout-mark', fixedKeys: 1, tail: 'none' },
  migrateScan: { file: 'migrate-scan', fixedKeys: 1, tail: 'none' },
  migrateExport: { file: 'migrate-export', fixedKeys: 4, tail: 'buckets' },
  migrateImport: { file: 'migrate-import', fixedKeys: 4, tail: 'buckets' },
  migrateDrop: { file: 'migrate-drop', fixedKeys: 4, tail: 'buckets' },
  migrateUnimport: { file: 'migrate-unimport', fixedKeys: 3, tail: 'buckets' },
  pendingList: { file: 'pending-list', fixedKeys: 1, tail: 'none' },
  pause: { file: 'pause', fixedKeys: 1, tail: 'none' },
  resume: { file: 'resume', fixedKeys: 2, tail: 'buckets' },
} as const satisfies Record<string, ScriptSpec>;

/** Names of the store's Lua scripts. */
export type ScriptName = keyof typeof SCRIPTS;

/** A loaded script: its source (includes expanded) and the command name it is registered under. */
export interface LoadedScript {
  name: ScriptName;
  /** Registered command name, versioned by the script's content hash, e.g. `dtClaim_3f2a9c01`. */
  command: string;
  lua: string;
  /**
   * Number of keys of every call: the fixed keys, plus `DATA_BUCKETS` (`buckets` tail) or
   * `FEW_BUCKETS` (`few` tail); undefined for a `variable` script, whose calls pass their key count first.
   */
  numberOfKeys: number | undefined;
}

/** The part of an ioredis `Redis` / `Cluster` the registry needs. */
export interface CommandHost {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

const INCLUDE = /^--\s*@include\s+([a-z-]+)\s*$/gm;

/** A Lua file's source, embedded at build time (`lua-files.generated.ts`, written by `npm run build`). */
function luaFile(name: string): string {
  const source = LUA_FILES[name];
  if (source === undefined) throw new Error(`packages/core/src/commands/${name}.lua is not embedded: rebuild the package (npm run build)`);
  return source;
}

function readScript(file: string): string {
  return luaFile(file).replace(INCLUDE, (_line, include: string) => luaFile(`includes/${include}`));
}

let loaded: Map<ScriptName, LoadedScript> | undefined;

/** Every script, prepared once per process, includes expanded. */
export function loadScripts(): ReadonlyMap<ScriptName, LoadedScript> {
  if (!loaded) {
    loaded = new Map();
    for (const [name, spec] of Object.entries(SCRIPTS) as [ScriptName, ScriptSpec][]) {
      const lua = readScript(spec.file);
      const version = createHash('sha1').update(lua).digest('hex').slice(0, 8);
      const command = `dt${name[0]!.toUpperCase()}${name.slice(1)}_${version}`;
      const tailKeys = spec.tail === 'buckets' ? DATA_BUCKETS : spec.tail === 'few' ? FEW_BUCKETS : 0;
      const numberOfKeys = spec.tail === 'variable' ? undefined : spec.fixedKeys + tailKeys;
      loaded.set(name, { name, command, lua, numberOfKeys });
    }
  }
  return loaded;
}

/**
 * Registers every script on one connection with ioredis `defineCommand` (EVALSHA, with a
 * fallback to EVAL on NOSCRIPT handled by ioredis). Safe to call again on the same connection.
 */
export function registerScripts(host: CommandHost): ReadonlyMap<ScriptName, LoadedScript> {
  const scripts = loadScripts();
  for (const script of scripts.values()) {
    host.defineCommand(script.command, script.numberOfKeys === undefined ? { lua: script.lua } : { lua: script.lua, numberOfKeys: script.numberOfKeys });
  }
  return scripts;
}
