import type { Command } from 'commander';
import { cliMessages } from '../cli.messages.js';
import { ConfirmationRequiredError } from '../errors/confirmation-required.error.js';
import type { RunCommand } from './command-context.js';
import { parseSlots } from './parse-options.js';

/**
 * `migrate-slots <topic> <slots> --yes`: moves every stored timeout of a topic to its slot of a new
 * slot count (`DurableTimeouts.migrateSlots`), safe while the services run; resumes a move that
 * stopped half-way. Then deploy the new `slots` option.
 */
export function registerMigrateSlotsCommand(program: Command, run: RunCommand): void {
  program
    .command('migrate-slots')
    .description("move a topic's timeouts to a new slot count while services run (needs --yes); run again to resume")
    .argument('<topic>', 'the topic')
    .argument('<slots>', 'the new slot count: a power of two from 1 to 1024', parseSlots)
    .option('--yes', 'do it (without it nothing is changed and the exit code is 4)')
    .action((topic: string, slots: number, local: { yes?: boolean }, command: Command) =>
      run(command, async ({ session, output }) => {
        const engine = await session.engineFor([topic]);
        const from = await session.slotsOf(topic);
        if (!local.yes) throw new ConfirmationRequiredError(cliMessages.confirmMigrate(topic, from, slots));
        const report = await engine.migrateSlots(topic, slots, {
          onProgress: (progress) => {
            if (!output.json) output.progress(`slot ${progress.slot} moved (${progress.done} of ${progress.total}), ${progress.moved} timeouts so far`);
          },
        });
        output.result(
          { topic, from: report.from, to: report.to, moved: report.moved, sourceSlots: report.sourceSlots, tookMs: Math.round(report.tookMs) },
          (data) =>
            `${topic}: ${data.from} -> ${data.to} slots, ${data.moved} timeouts moved from ${data.sourceSlots} slots in ${(data.tookMs / 1000).toFixed(1)} s. ` +
            `Deploy topics.${topic}.slots = ${data.to} now: instances started with ${data.from} refuse to start.`,
        );
      }),
    );
}
