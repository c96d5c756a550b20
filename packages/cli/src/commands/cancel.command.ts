import type { Command } from 'commander';
import { cliMessages } from '../cli.messages.js';
import { ConfirmationRequiredError } from '../errors/confirmation-required.error.js';
import { TimeoutFiringError } from '../errors/timeout-firing.error.js';
import { TimeoutNotFoundError } from '../errors/timeout-not-found.error.js';
import type { RunCommand } from './command-context.js';

/** `cancel <topic> <id> --yes`: cancels one timeout (a firing one too: exit code 5). */
export function registerCancelCommand(program: Command, run: RunCommand): void {
  program
    .command('cancel')
    .description('cancel a timeout: it never fires again (needs --yes)')
    .argument('<topic>', 'the topic')
    .argument('<id>', 'the timeout id')
    .option('--yes', 'do it (without it nothing is changed and the exit code is 4)')
    .action((topic: string, id: string, local: { yes?: boolean }, command: Command) =>
      run(command, async ({ session, output }) => {
        const engine = await session.engineFor([topic]);
        if (!local.yes) throw new ConfirmationRequiredError(cliMessages.confirmCancel(topic, id));
        const result = await engine.cancel(topic, id);
        if (result === 'not_found') throw new TimeoutNotFoundError(cliMessages.notPendingAnyMore(topic, id));
        if (result === 'firing') throw new TimeoutFiringError(cliMessages.firing(topic, id));
        output.result({ topic, id, result }, () => `cancelled ${id} of ${topic}`);
      }),
    );
}
