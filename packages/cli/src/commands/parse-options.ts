import { InvalidArgumentError, type Command } from 'commander';
import { cliMessages } from '../cli.messages.js';
import { parseSlotCount } from '../topic-registry.js';

/** A commander option parser for a whole number within [min, max]. */
export function parseInteger(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) throw new InvalidArgumentError(cliMessages.notInteger(flag, value, min, max));
    return parsed;
  };
}

/** The commander option parser of `--slots`: a power of two from 1 to 1024. */
export function parseSlots(value: string): number {
  const slots = parseSlotCount(value);
  if (slots === undefined) throw new InvalidArgumentError(cliMessages.badSlots(value));
  return slots;
}

/** The `--limit` and `--offset` of a listing (the engine pages at most 10,000 deep). */
export function withPageOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'how many (1 to 1000)', parseInteger('--limit', 1, 1_000), 20)
    .option('--offset <n>', 'skip this many first (offset + limit up to 10000)', parseInteger('--offset', 0, 9_999), 0);
}
