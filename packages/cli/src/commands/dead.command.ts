import type { Command } from 'commander';
import { cliMessages } from '../cli.messages.js';
import { ConfirmationRequiredError } from '../errors/confirmation-required.error.js';
import { TimeoutNotFoundError } from '../errors/timeout-not-found.error.js';
import { formatAgo, formatTime, oneLine } from '../output/format.js';
import { withPageOptions } from './parse-options.js';
import type { RunCommand } from './command-context.js';

/** `dead list|replay|purge <topic> [ids...]`: the dead letters of a topic. */
export function registerDeadCommand(program: Command, run: RunCommand): void {
  const dead = program.command('dead').description('dead letters: list them, replay them (due again now, attempts reset) or purge them');

  withPageOptions(
    dead
      .command('list')
      .description('the dead letters of a topic, oldest first, with their last error')
      .argument('<topic>', 'the topic'),
  ).action((topic: string, local: { limit: number; offset: number }, command: Command) =>
    run(command, async ({ session, output, options, now }) => {
      const engine = await session.engineFor([topic]);
      const letters = await engine.listDead(topic, { limit: local.limit, offset: local.offset });
      output.records(
        letters,
        options.showPayloads,
        [{ header: 'id' }, { header: 'died' }, { header: '' }, { header: 'attempts', align: 'right' }, { header: 'last error' }],
        (letter) => [letter.id, formatTime(letter.deadAt), formatAgo(letter.deadAt, now), String(letter.attempts), oneLine(letter.lastError, 80)],
      );
    }),
  );

  const change = (name: 'replay' | 'purge', description: string) =>
    dead
      .command(name)
      .description(description)
      .argument('<topic>', 'the topic')
      .argument('[ids...]', 'the dead letters to change (default: every dead letter of the topic)')
      .option('--yes', 'do it (without it nothing is changed and the exit code is 4)')
      .action((topic: string, ids: string[], local: { yes?: boolean }, command: Command) =>
        run(command, async ({ session, output }) => {
          const engine = await session.engineFor([topic]);
          if (!local.yes) throw new ConfirmationRequiredError(name === 'replay' ? cliMessages.confirmReplay(topic, ids) : cliMessages.confirmPurge(topic, ids));
          const chosen = ids.length > 0 ? ids : undefined;
          const count = name === 'replay' ? await engine.replayDead(topic, chosen) : await engine.purgeDead(topic, chosen);
          if (chosen && count === 0) throw new TimeoutNotFoundError(cliMessages.noDeadLetters(topic, chosen));
          const verb = name === 'replay' ? 'replayed' : 'purged';
          output.result({ topic, [verb]: count }, () => `${verb} ${count} dead letter${count === 1 ? '' : 's'} of ${topic}`);
        }),
      );
  change('replay', 'put dead letters back as due now, attempts reset: their handlers run again (needs --yes)');
  change('purge', 'delete dead letters for good (needs --yes)');
}
