#!/usr/bin/env node
// The `durable-timeout` command: see `durable-timeout --help` and docs/CLI.md.
import { runCli } from './cli.program.js';

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then((exitCode) => {
  process.exitCode = exitCode;
});
