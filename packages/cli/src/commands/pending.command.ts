import type { Command } from 'commander';
import { formatDue, formatTime, oneLine } from '../output/format.js';
import { withPageOptions } from './parse-options.js';
import type { RunCommand } from './command-context.js';

/** `pending <topic>`: the next due timeouts, earliest first across the topic's slots. */
export function registerPendingCommand(program: Command, run: RunCommand): void {
  withPageOptions(
    program
      .command('pending')
      .description('the next pending timeouts of a topic, earliest due first (merged across its slots)')
      .argument('<topic>', 'the topic'),
  ).action((topic: string, local: { limit: number; offset: number }, command: Command) =>
    run(command, async ({ session, output, options, now }) => {
      const engine = await session.engineFor([topic]);
      const listed = await engine.listPending(topic, { limit: local.limit, offset: local.offset });
      output.records(
        listed,
        options.showPayloads,
        [{ header: 'id' }, { header: 'due' }, { header: '' }, { header: 'attempt', align: 'right' }, { header: 'last error' }],
        (info) => [
          info.id,
          formatTime(info.dueAt),
          info.state === 'firing' ? 'firing now' : formatDue(info.dueAt, now),
          String(info.attempt),
          oneLine(info.lastError ?? '', 60),
        ],
      );
    }),
  );
}
