import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import {
  InvalidConnectionError,
  InvalidDelayError,
  InvalidOptionsError,
  InvalidStoreOptionError,
  InvalidTimeoutIdError,
  RedisUnavailableError,
  TopicSlotsMismatchError,
  UnknownTopicError,
} from '@durable-timeout/core';
import { AdminSession } from './admin-session.js';
import { cliMessages } from './cli.messages.js';
import { registerCancelCommand } from './commands/cancel.command.js';
import { resolveConnection } from './connection-flags.js';
import type { GlobalOptions, RunCommand } from './commands/command-context.js';
import { registerDeadCommand } from './commands/dead.command.js';
import { registerInspectCommand } from './commands/inspect.command.js';
import { registerMigrateSlotsCommand } from './commands/migrate-slots.command.js';
import { parseInteger, parseSlots } from './commands/parse-options.js';
import { registerPendingCommand } from './commands/pending.command.js';
import { registerPauseCommands } from './commands/pause.command.js';
import { registerSchedulesCommand } from './commands/schedules.command.js';
import { registerStatsCommand } from './commands/stats.command.js';
import { CliError } from './errors/cli.error.js';
import { RedisUnreachableError } from './errors/redis-unreachable.error.js';
import { EXIT_CODES, type ExitCode } from './exit-codes.js';
import { Output, type CliIo } from './output/output.js';

const EXIT_CODES_HELP = `
Connections (one of):
  --url redis://user:password@host:6379/0       one server
  --url redis+cluster://host:port,host:port     a Redis Cluster, or --cluster host:port,...
  --url redis+sentinel://host:port,.../mymaster Sentinel, or --sentinel host:port,... --name mymaster
  rediss... or --tls for TLS; --user and --password (or REDIS_PASSWORD) for an ACL user.

Exit codes:
  0  done
  1  unexpected failure
  2  bad arguments, or a topic whose slot count is unknown (pass --slots)
  3  no such timeout (inspect, cancel), or none of the ids is a dead letter
  4  a command that changes data ran without --yes: nothing was changed
  5  cancel: the timeout was firing: removed, its running handler told to stop
  6  Redis unreachable, or it refused the login or a command (ACL)

Examples:
  durable-timeout stats
  durable-timeout stats payment --json
  durable-timeout pending payment --limit 50
  durable-timeout inspect payment order-123 --show-payloads
  durable-timeout dead list payment
  durable-timeout dead replay payment order-123 order-456 --yes
  durable-timeout cancel payment order-123 --yes
  durable-timeout migrate-slots payment 32 --yes
  durable-timeout pause payment --yes
  durable-timeout resume payment --shift --yes
  durable-timeout schedules`;

/** The version of this package, for `--version`. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Runs the `durable-timeout` command line on `argv` (without the node and script paths) and
 * returns the exit code. Results go to `io.out`, errors to `io.err`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed its message already (usage errors, help, version).
      return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    const failure = toCliError(error, program.opts<GlobalOptions>().prefix);
    const json = program.opts<GlobalOptions>().json === true || argv.includes('--json');
    io.err(json ? `${JSON.stringify({ error: { name: failure.name, message: failure.message, exitCode: failure.exitCode } })}\n` : `error: ${failure.message}\n`);
    return failure.exitCode;
  }
}

function buildProgram(io: CliIo): Command {
  const program = new Command('durable-timeout')
    .description('Operate durable-timeout: counts, pending timeouts, dead letters, cancel, pause and resume, slot migration, recurring schedules. Reads the same Redis as your services.')
    .version(packageVersion())
    .addOption(
      new Option('--url <url>', 'where Redis is, as a URL (see Connections below)')
        .env('REDIS_URL')
        .default('redis://127.0.0.1:6379'),
    )
    .addOption(new Option('--cluster <nodes>', 'a Redis Cluster, by some of its nodes: host:port,host:port'))
    .addOption(new Option('--sentinel <sentinels>', 'Sentinel: the sentinels, host:port,host:port (with --name)'))
    .addOption(new Option('--name <master>', 'the master name the sentinels monitor (with --sentinel)'))
    .addOption(new Option('--tls', 'TLS to every server (a private CA: NODE_EXTRA_CA_CERTS=ca.pem)'))
    .addOption(new Option('--user <user>', 'ACL user (instead of the one in the URL)').env('REDIS_USER'))
    .addOption(new Option('--password <password>', 'its password (prefer REDIS_PASSWORD: arguments show in ps)').env('REDIS_PASSWORD'))
    .addOption(new Option('--prefix <prefix>', 'key prefix of the engine (its `prefix` option)').env('DT_PREFIX').default('dt'))
    .addOption(new Option('--slots <n>', 'slot count of a topic the registry <prefix>:topics does not hold').argParser(parseSlots))
    .addOption(new Option('--timeout <ms>', 'how long each Redis call may take').argParser(parseInteger('--timeout', 10, 60_000)).default(2_000))
    .option('--json', 'print JSON for scripts instead of tables')
    .option('--show-payloads', 'show payloads (hidden by default: they may hold personal data)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });
  const run: RunCommand = async (command, work) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const urlSource = program.getOptionValueSource('url') === 'cli' ? 'cli' : program.getOptionValueSource('url') === 'env' ? 'env' : 'default';
    const connection = resolveConnection({ ...options, urlSource });
    const session = await AdminSession.open({ connection, prefix: options.prefix, slots: options.slots, timeoutMs: options.timeout });
    try {
      const settled = { ...options, json: options.json === true, showPayloads: options.showPayloads === true };
      await work({ session, output: new Output(io, settled.json), options: settled, now: Date.now() });
    } finally {
      await session.close();
    }
  };
  registerStatsCommand(program, run);
  registerPendingCommand(program, run);
  registerInspectCommand(program, run);
  registerDeadCommand(program, run);
  registerCancelCommand(program, run);
  registerMigrateSlotsCommand(program, run);
  registerPauseCommands(program, run);
  registerSchedulesCommand(program, run);
  // Subcommands report usage errors through the program's exit override and output.
  for (const command of program.commands) inherit(command, program);
  return program;
}

function inherit(command: Command, program: Command): void {
  command.exitOverride();
  command.configureOutput(program.configureOutput());
  command.addHelpText(
    'after',
    '\nGlobal options (--url, --cluster, --sentinel, --name, --tls, --user, --password, --prefix, --slots, --timeout, --json, --show-payloads): durable-timeout --help',
  );
  for (const sub of command.commands) inherit(sub, program);
}

/**
 * The engine's errors that mean the arguments or settings are wrong (exit code 2). Its other
 * errors (a slot migration in progress, replicas that did not confirm, an unreadable reply) end
 * with exit code 1.
 */
const USAGE_ERRORS = [InvalidConnectionError, InvalidDelayError, InvalidOptionsError, InvalidStoreOptionError, InvalidTimeoutIdError, TopicSlotsMismatchError, UnknownTopicError];

/** The command line's error for anything a command threw. */
function toCliError(error: unknown, prefix: string): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof RedisUnavailableError) return new RedisUnreachableError(cliMessages.unavailable(error.message), { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  if (/^(NOPERM|WRONGPASS|NOAUTH)/.test(message)) return new RedisUnreachableError(cliMessages.refused(message, prefix), { cause: error });
  // The engine's advice names its `connection` option; the command line's user needs its flags.
  if (error instanceof InvalidConnectionError && error.reason === 'cluster-node') {
    return new CliError(cliMessages.clusterNode(error.connection), EXIT_CODES.usage, { cause: error });
  }
  if (USAGE_ERRORS.some((errorClass) => error instanceof errorClass)) return new CliError(message, EXIT_CODES.usage, { cause: error });
  return new CliError(message, EXIT_CODES.failed, { cause: error });
}
