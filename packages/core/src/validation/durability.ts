import type { DurabilityOptions } from '../types.js';

/** `DurabilityOptions` after defaults. */
export interface ResolvedDurability {
  replicas: number;
  timeoutMs: number;
  onUnavailable: 'refuse' | 'warn';
  aof: boolean;
}

/** What `checkDurability` found: the option with its defaults (undefined: off), or what is wrong with it. */
export type DurabilityCheck = { ok: true; value: ResolvedDurability | undefined } | { ok: false; message: string };

const DURABILITY_KEYS = new Set(['replicas', 'timeoutMs', 'onUnavailable', 'aof']);

/**
 * The one check of the `durability` option, for the engine's options and the Redis store's: each
 * throws its own error type with the message given here.
 */
export function checkDurability(options: DurabilityOptions | undefined): DurabilityCheck {
  if (options === undefined) return { ok: true, value: undefined };
  const problem = durabilityProblem(options);
  if (problem !== undefined) {
    return {
      ok: false,
      message: `Invalid durability option: ${problem}. Use { replicas: 1, timeoutMs?: 500, onUnavailable?: 'refuse' | 'warn', aof?: false }, or leave it out.`,
    };
  }
  const { replicas, timeoutMs = 500, onUnavailable = 'refuse', aof = false } = options;
  return { ok: true, value: { replicas, timeoutMs, onUnavailable, aof } };
}

function durabilityProblem(options: DurabilityOptions): string | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return `got ${JSON.stringify(options)}`;
  const unknown = Object.keys(options).filter((key) => !DURABILITY_KEYS.has(key));
  if (unknown.length > 0) return `unknown field ${unknown.join(', ')}`;
  const { replicas, timeoutMs = 500, onUnavailable = 'refuse', aof = false } = options;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 100) return `replicas is ${JSON.stringify(replicas)}; use an integer from 1 to 100`;
  // WAIT 0 would block for ever: a bound is required.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) return `timeoutMs is ${JSON.stringify(timeoutMs)}; use an integer from 1 to 60000`;
  if (onUnavailable !== 'refuse' && onUnavailable !== 'warn') return `onUnavailable is ${JSON.stringify(onUnavailable)}; use 'refuse' or 'warn'`;
  if (typeof aof !== 'boolean') return `aof is ${JSON.stringify(aof)}; use true or false`;
  return undefined;
}
