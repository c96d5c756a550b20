import type { Command } from 'commander';
import { SCHEDULES_TOPIC, type RecurringScheduleInfo } from '@durable-timeout/core';
import { formatDue, formatDuration, formatTime } from '../output/format.js';
import type { RunCommand } from './command-context.js';

/** `schedules`: every recurring schedule by name (`timeouts.schedules.list()`), read-only. */
export function registerSchedulesCommand(program: Command, run: RunCommand): void {
  program
    .command('schedules')
    .description(`the recurring schedules (topic "${SCHEDULES_TOPIC}") by name: when each fires, its catch-up rule, state and next occurrence`)
    .action((_local: Record<string, never>, command: Command) =>
      run(command, async ({ session, output, options, now }) => {
        const engine = await session.engineFor([SCHEDULES_TOPIC]);
        const listed = await engine.schedules.list();
        output.records(
          listed,
          options.showPayloads,
          [{ header: 'name' }, { header: 'fires' }, { header: 'catch-up' }, { header: 'state' }, { header: 'next' }, { header: '' }],
          (info) => [info.name, recurrence(info), info.catchUp, info.paused ? `${info.state}, paused` : info.state, formatTime(info.nextAt), info.state === 'firing' ? 'firing now' : formatDue(info.nextAt, now)],
        );
      }),
    );
}

/** When a schedule fires, for people: `0 2 * * * (Europe/Berlin)`, `every 1 min 0 s`. */
function recurrence(info: RecurringScheduleInfo): string {
  if (info.cron !== undefined) return `${info.cron} (${info.timeZone ?? 'UTC'})`;
  return `every ${formatDuration(info.everyMs ?? 0)}`;
}
