import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * What a script takes after its fixed keys: nothing, or data bucket keys (all of the slot's, or
 * those of the ids in the call, as its header says). Scripts with a tail take their key count as
 * the first argument (ioredis `defineCommand` without `numberOfKeys`).
 */
type KeyTail = 'none' | 'buckets';

interface ScriptSpec {
  /** Base name of the Lua file, `<name>-<fixed keys>.lua`. */
  file: string;
  /** Keys every call passes first. */
  fixedKeys: number;
  tail: KeyTail;
}

const SCRIPTS = {
  schedule: { file: 'schedule-3', fixedKeys: 3, tail: 'buckets' },
  cancel: { file: 'cancel-3', fixedKeys: 3, tail: 'none' },
  get: { file: 'get-4', fixedKeys: 4, tail: 'none' },
  claim: { file: 'claim-3', fixedKeys: 3, tail: 'buckets' },
  ack: { file: 'ack-2', fixedKeys: 2, tail: 'none' },
  ackMany: { file: 'ack-many-1', fixedKeys: 1, tail: 'buckets' },
  fail: { file: 'fail-4', fixedKeys: 4, tail: 'none' },
  release: { file: 'release-2', fixedKeys: 2, tail: 'buckets' },
  stats: { file: 'stats-3', fixedKeys: 3, tail: 'none' },
  deadList: { file: 'dead-list-1', fixedKeys: 1, tail: 'buckets' },
  deadReplay: { file: 'dead-replay-2', fixedKeys: 2, tail: 'buckets' },
  deadPurge: { file: 'dead-purge-1', fixedKeys: 1, tail: 'buckets' },
} as const satisfies Record<string, ScriptSpec>;

/** Names of the store's Lua scripts. */
export type ScriptName = keyof typeof SCRIPTS;

/** A loaded script: its source (includes expanded) and the command name it is registered under. */
export interface LoadedScript {
  name: ScriptName;
  /** Registered command name, versioned by the script's content hash, e.g. `dtClaim_3f2a9c01`. */
  command: string;
  lua: string;
  /** Number of fixed keys; undefined when the call passes its key count (bucket tail). */
  numberOfKeys: number | undefined;
}

/** The part of an ioredis `Redis` / `Cluster` the registry needs. */
export interface CommandHost {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

const INCLUDE = /^--\s*@include\s+([a-z-]+)\s*$/gm;

function readScript(file: string): string {
  const source = readFileSync(new URL(`./${file}.lua`, import.meta.url), 'utf8');
  return source.replace(INCLUDE, (_line, include: string) =>
    readFileSync(new URL(`./includes/${include}.lua`, import.meta.url), 'utf8'),
  );
}

let loaded: Map<ScriptName, LoadedScript> | undefined;

/** Every script, read from disk once per process, includes expanded. */
export function loadScripts(): ReadonlyMap<ScriptName, LoadedScript> {
  if (!loaded) {
    loaded = new Map();
    for (const [name, spec] of Object.entries(SCRIPTS) as [ScriptName, ScriptSpec][]) {
      const lua = readScript(spec.file);
      const version = createHash('sha1').update(lua).digest('hex').slice(0, 8);
      const command = `dt${name[0]!.toUpperCase()}${name.slice(1)}_${version}`;
      loaded.set(name, { name, command, lua, numberOfKeys: spec.tail === 'none' ? spec.fixedKeys : undefined });
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
    host.defineCommand(script.command, { lua: script.lua, numberOfKeys: script.numberOfKeys });
  }
  return scripts;
}
