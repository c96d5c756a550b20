import type { Command } from 'commander';
import { cliMessages } from '../cli.messages.js';
import { ConfirmationRequiredError } from '../errors/confirmation-required.error.js';
import type { RunCommand } from './command-context.js';

/**
 * `pause <topic> --yes` and `resume <topic> [--shift] --yes`: stop every instance from firing a
 * topic's timeouts, and let them fire again (`DurableTimeouts.pause`, `resume`).
 */
export function registerPauseCommands(program: Command, run: RunCommand): void {
  program
    .command('pause')
    .description("pause a topic: no instance fires its timeouts until resume; schedules and cancels go on (needs --yes)")
    .argument('<topic>', 'the topic')
    .option('--yes', 'do it (without it nothing is changed and the exit code is 4)')
    .action((topic: string, local: { yes?: boolean }, command: Command) =>
      run(command, async ({ session, output }) => {
        const engine = await session.engineFor([topic]);
        if (!local.yes) throw new ConfirmationRequiredError(cliMessages.confirmPause(topic));
        const state = await engine.pause(topic);
        output.result(state, () => `paused ${topic} (since ${new Date(state.pausedAt!).toISOString()})`);
      }),
    );
  program
    .command('resume')
    .description('resume a paused topic: what fell due fires now, or later by the pause with --shift (needs --yes)')
    .argument('<topic>', 'the topic')
    .option('--shift', 'move every pending due time later by the length of the pause')
    .option('--yes', 'do it (without it nothing is changed and the exit code is 4)')
    .action((topic: string, local: { yes?: boolean; shift?: boolean }, command: Command) =>
      run(command, async ({ session, output }) => {
        const engine = await session.engineFor([topic]);
        const shift = local.shift === true;
        if (!local.yes) throw new ConfirmationRequiredError(cliMessages.confirmResume(topic, shift));
        const result = await engine.resume(topic, { shift });
        output.result(result, () =>
          result.resumed
            ? `resumed ${topic} after ${result.pausedMs} ms${shift ? `, ${result.shifted} due time(s) moved later` : ''}`
            : `${topic} was not paused: nothing changed`,
        );
      }),
    );
}
