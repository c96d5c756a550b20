import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertBuilt, cli } from './fixtures/run-cli.js';

/** docs/CLI.md, which shows the command's `--help` in full. */
const CLI_DOC = fileURLToPath(new URL('../../../docs/CLI.md', import.meta.url));
const HELP_HEADING = '## `durable-timeout --help`';

/** The first ```text block after the `--help` heading of docs/CLI.md. */
function documentedHelp(): string {
  const doc = readFileSync(CLI_DOC, 'utf8');
  const section = doc.slice(doc.indexOf(HELP_HEADING));
  const block = /```text\n([\s\S]*?)```/.exec(section);
  if (!doc.includes(HELP_HEADING) || block === null) throw new Error(`docs/CLI.md has no \`\`\`text block under "${HELP_HEADING}"`);
  return block[1]!;
}

beforeAll(() => {
  assertBuilt();
});

describe('docs/CLI.md', () => {
  it('shows the `--help` the built command prints, character for character (after a change: paste `node packages/cli/dist/main.js --help`)', async () => {
    // Not a terminal, so commander wraps at 80 columns, as in the docs.
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(documentedHelp()).toBe(run.stdout);
  });
});
