import type { Command } from 'commander';
import type { TopicSlotStats } from '@durable-timeout/core';
import { cliMessages } from '../cli.messages.js';
import { UsageError } from '../errors/usage.error.js';
import { formatAge, formatCount } from '../output/format.js';
import { renderTable } from '../output/table.js';
import type { RunCommand } from './command-context.js';

/** Figures of one topic, summed over its slots. */
export interface TopicSummary {
  topic: string;
  slots: number;
  pending: number;
  firing: number;
  dead: number;
  /** Age of the oldest overdue pending timeout, ms; 0 when none. */
  oldestOverdueMs: number;
  /** Pending timeouts per slot: how evenly ids spread. */
  spread: { min: number; max: number; mean: number };
}

/** Sums the slots of a topic. */
export function summarize(topic: string, slots: readonly TopicSlotStats[]): TopicSummary {
  const pendings = slots.map((slot) => slot.pending);
  const total = (pick: (slot: TopicSlotStats) => number) => slots.reduce((sum, slot) => sum + pick(slot), 0);
  return {
    topic,
    slots: slots.length,
    pending: total((slot) => slot.pending),
    firing: total((slot) => slot.firing),
    dead: total((slot) => slot.dead),
    oldestOverdueMs: Math.max(0, ...slots.map((slot) => slot.oldestOverdueMs)),
    spread: { min: Math.min(...pendings), max: Math.max(...pendings), mean: total((slot) => slot.pending) / Math.max(1, slots.length) },
  };
}

const FIGURE_COLUMNS = [
  { header: 'pending', align: 'right' },
  { header: 'firing', align: 'right' },
  { header: 'dead', align: 'right' },
  { header: 'oldest overdue', align: 'right' },
] as const;

function figures(row: { pending: number; firing: number; dead: number; oldestOverdueMs: number }): string[] {
  return [formatCount(row.pending), formatCount(row.firing), formatCount(row.dead), formatAge(row.oldestOverdueMs)];
}

/** `stats [topic]`: every topic of the registry, or one topic with its slots. */
export function registerStatsCommand(program: Command, run: RunCommand): void {
  program
    .command('stats')
    .description('pending, firing and dead counts and the oldest overdue age: of every registered topic, or of one topic slot by slot')
    .argument('[topic]', 'one topic: its totals and every slot (the spread)')
    .action((topic: string | undefined, _options: unknown, command: Command) =>
      run(command, async ({ session, output }) => {
        if (topic === undefined) {
          const registry = await session.registry();
          const topics = [...registry.topics.keys()];
          if (topics.length === 0) throw new UsageError(cliMessages.noRegistry(session.registryKey));
          const engine = await session.engineFor(topics);
          const summaries = await Promise.all(topics.map(async (name) => summarize(name, await engine.slotStats(name))));
          output.result({ prefix: session.settings.prefix, topics: summaries }, (data) =>
            renderTable(
              [{ header: 'topic' }, { header: 'slots', align: 'right' }, ...FIGURE_COLUMNS],
              data.topics.map((summary) => [summary.topic, String(summary.slots), ...figures(summary)]),
            ),
          );
          return;
        }
        const engine = await session.engineFor([topic]);
        const slots = await engine.slotStats(topic);
        output.result({ ...summarize(topic, slots), perSlot: slots }, (data) =>
          [
            `topic ${data.topic}: ${data.slots} slots, ${formatCount(data.pending)} pending, ${formatCount(data.firing)} firing, ` +
              `${formatCount(data.dead)} dead, oldest overdue ${formatAge(data.oldestOverdueMs)}`,
            `pending per slot: min ${formatCount(data.spread.min)}, max ${formatCount(data.spread.max)}, mean ${data.spread.mean.toFixed(1)}`,
            '',
            renderTable(
              [{ header: 'slot', align: 'right' }, ...FIGURE_COLUMNS],
              data.perSlot.map((slot) => [String(slot.slot), ...figures(slot)]),
            ),
          ].join('\n'),
        );
      }),
    );
}
