import { benchMessages } from './bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

/** Commands the harness itself sends between two snapshots; they are not the system's cost. */
const HARNESS_COMMANDS = new Set(['info', 'config|resetstat', 'config|set', 'config|get', 'flushall', 'dbsize', 'memory|purge']);

/** Fields of an `INFO` reply (`name:value` lines; section headers and blank lines skipped). */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** `used_memory` of an `INFO memory` reply, in bytes. */
export function usedMemory(infoText: string): number {
  const value = Number(parseInfo(infoText).get('used_memory'));
  if (!Number.isFinite(value)) throw new HarnessError('environment', benchMessages.missingInfoField('memory', 'used_memory'));
  return value;
}

/** One numeric field (`calls`, `usec`) per command of an `INFO commandstats` reply. */
function commandField(infoText: string, name: 'calls' | 'usec'): Map<string, number> {
  const values = new Map<string, number>();
  const pattern = new RegExp(`(?:^|,)${name}=(\\d+)`);
  for (const [field, value] of parseInfo(infoText)) {
    if (!field.startsWith('cmdstat_')) continue;
    const match = pattern.exec(value);
    if (match) values.set(field.slice('cmdstat_'.length), Number(match[1]));
  }
  return values;
}

/**
 * Calls per command of an `INFO commandstats` reply (`cmdstat_zadd:calls=3,usec=...`). Redis counts
 * commands run inside Lua scripts here too, so this is the work Redis did, not the round trips.
 */
export function commandCalls(infoText: string): Map<string, number> {
  return commandField(infoText, 'calls');
}

/** Microseconds spent per command of an `INFO commandstats` reply (a script's time includes its nested commands). */
export function commandUsec(infoText: string): Map<string, number> {
  return commandField(infoText, 'usec');
}

/** Calls per command between two `INFO commandstats` snapshots, leaving out the harness's own. */
export function commandMixBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const mix = new Map<string, number>();
  for (const [command, calls] of after) {
    const delta = calls - (before.get(command) ?? 0);
    if (!HARNESS_COMMANDS.has(command) && delta > 0) mix.set(command, delta);
  }
  return mix;
}

/** Commands executed between two `INFO commandstats` snapshots, leaving out the harness's own. */
export function commandsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const calls of commandMixBetween(before, after).values()) total += calls;
  return total;
}

/** CPU seconds (user + system, main thread and children) of an `INFO cpu` reply. */
export function usedCpuSeconds(infoText: string): number {
  const fields = parseInfo(infoText);
  const value = Number(fields.get('used_cpu_user')) + Number(fields.get('used_cpu_sys'));
  if (!Number.isFinite(value)) throw new HarnessError('environment', benchMessages.missingInfoField('cpu', 'used_cpu_user / used_cpu_sys'));
  return value;
}

/** The busiest commands of a mix, per timeout: `evalsha 2.00, zrangebyscore 2.00, ...`. */
export function describeMix(mix: Map<string, number>, per: number, top = 6): string {
  return [...mix]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([command, calls]) => `${command} ${(calls / per).toFixed(2)}`)
    .join(', ');
}

/** Bytes Redis read from and wrote to its clients so far, from an `INFO stats` reply. */
export function networkBytes(infoText: string): { input: number; output: number } {
  const fields = parseInfo(infoText);
  const input = Number(fields.get('total_net_input_bytes'));
  const output = Number(fields.get('total_net_output_bytes'));
  if (!Number.isFinite(input) || !Number.isFinite(output)) throw new HarnessError('environment', benchMessages.missingInfoField('stats', 'total_net_input_bytes / total_net_output_bytes'));
  return { input, output };
}
