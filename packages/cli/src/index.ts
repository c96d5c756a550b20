/**
 * `@durable-timeout/cli`: the `durable-timeout` admin command line. The command is the product;
 * `runCli` runs it in-process (e.g. from a script of your own). See docs/CLI.md.
 *
 * @packageDocumentation
 */
export { runCli } from './cli.program.js';
export { EXIT_CODES, type ExitCode } from './exit-codes.js';
export type { CliIo } from './output/output.js';
export * from './errors/index.js';
