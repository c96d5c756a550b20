import type { Command } from 'commander';
import { PayloadDecodeError, type TimeoutInfo } from '@durable-timeout/core';
import { cliMessages } from '../cli.messages.js';
import { TimeoutNotFoundError } from '../errors/timeout-not-found.error.js';
import { formatAgo, formatDue, formatTime } from '../output/format.js';
import { payloadText, withPayload } from '../output/output.js';
import { renderFields } from '../output/table.js';
import type { RunCommand } from './command-context.js';

/** `inspect <topic> <id>`: one timeout in any state. */
export function registerInspectCommand(program: Command, run: RunCommand): void {
  program
    .command('inspect')
    .description('one timeout in any state (pending, firing, dead): due time, attempts, lease, last error')
    .argument('<topic>', 'the topic')
    .argument('<id>', 'the timeout id')
    .action((topic: string, id: string, _options: unknown, command: Command) =>
      run(command, async ({ session, output, options, now }) => {
        const engine = await session.engineFor([topic]);
        const info = await readable(engine.get(topic, id));
        if (info === null) throw new TimeoutNotFoundError(cliMessages.timeoutNotFound(topic, id));
        output.result(withPayload(info, options.showPayloads), () => {
          const fields: [string, string][] = [
            ['topic', info.topic],
            ['id', info.id],
            ['state', info.state],
            info.state === 'dead'
              ? ['died', `${formatTime(info.dueAt)} (${formatAgo(info.dueAt, now)})`]
              : ['due', `${formatTime(info.dueAt)} (${formatDue(info.dueAt, now)})`],
            ['scheduled', formatTime(info.scheduledAt)],
            ['attempts', String(info.attempt)],
          ];
          if (info.leaseExpiresAt !== undefined) fields.push(['lease until', formatTime(info.leaseExpiresAt)]);
          if (info.lastError !== undefined) fields.push(['last error', info.lastError]);
          fields.push(['payload', options.showPayloads ? payloadText(info) : cliMessages.payloadHidden()]);
          return renderFields(fields);
        });
      }),
    );
}

/** The timeout as `get` reads it; one whose payload cannot be decoded here has a null payload and `payloadError`. */
async function readable(read: Promise<TimeoutInfo<unknown> | null>): Promise<TimeoutInfo<unknown> | null> {
  try {
    return await read;
  } catch (error) {
    if (!(error instanceof PayloadDecodeError)) throw error;
    return { ...error.timeout, payload: null, payloadError: error.reason };
  }
}
