import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertBuilt, cli } from './fixtures/run-cli.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** docs/CLI.md, which shows the command's `--help` in full. */
const CLI_DOC = `${ROOT}docs/CLI.md`;
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

/** A `durable-timeout ...` command line shown by the documentation. */
interface ShownCommand {
  where: string;
  words: string[];
}

/**
 * Every `durable-timeout ...` command line of README.md, CONTRIBUTING.md, docs/*.md and
 * packages/*\/README.md: in inline code, and on the lines of shell and plain blocks (with or
 * without `npx ` or a `$ ` prompt in front; a `# comment` dropped).
 */
function shownCommands(): ShownCommand[] {
  const docs = ['README.md', 'CONTRIBUTING.md', ...readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  docs.push(...readdirSync(`${ROOT}packages`).map((name) => `packages/${name}/README.md`).filter((path) => existsSync(`${ROOT}${path}`)));
  const shown: ShownCommand[] = [];
  const add = (where: string, command: string): void => {
    // `[--shift]` is an optional flag as the help writes it: the flag counts.
    const words = command.replace(/\s+#.*$/, '').replace(/[[\]]/g, '').trim().split(/\s+/);
    shown.push({ where, words: words.slice(words.indexOf('durable-timeout') + 1) });
  };
  for (const doc of docs) {
    let block: string | undefined;
    readFileSync(`${ROOT}${doc}`, 'utf8').split('\n').forEach((line, index) => {
      const where = `${doc}:${index + 1}`;
      const fence = /^\s*```(\w*)/.exec(line);
      if (fence) {
        block = block === undefined ? fence[1]! : undefined;
        return;
      }
      if (block === undefined) {
        for (const [, command] of line.matchAll(/`((?:npx )?durable-timeout(?: [a-z-][^`]*)?)`/g)) add(where, command!);
      } else if (['sh', 'bash', 'shell', 'text', ''].includes(block)) {
        const command = /^\s*(?:\$ )?((?:npx )?durable-timeout(?: .*)?)$/.exec(line)?.[1];
        if (command !== undefined) add(where, command);
      }
    });
  }
  return shown;
}

/** The subcommands and the `--options` of `durable-timeout <path...>`, as its `--help` lists them. */
async function helpOf(path: readonly string[]): Promise<{ commands: Set<string>; options: Set<string> }> {
  const run = await cli([...path, '--help']);
  if (run.code !== 0) throw new Error(`durable-timeout ${path.join(' ')} --help exited ${run.code}: ${run.stderr}`);
  const section = (title: string): string[] => {
    const start = run.stdout.indexOf(`\n${title}:\n`);
    if (start === -1) return [];
    const body = run.stdout.slice(start + title.length + 3);
    return body.slice(0, body.search(/\n\S|$/)).split('\n');
  };
  const commands = new Set(section('Commands').flatMap((line) => /^  ([a-z][\w-]*)/.exec(line)?.[1] ?? []));
  const options = new Set(section('Options').flatMap((line) => [.../(?:^|[\s,])(--[a-z][\w-]*)/g.exec(line) ?? []].slice(1, 2)));
  return { commands, options };
}

describe('the command lines the documentation shows', () => {
  it('name commands that exist, with options they take (theirs, or the global ones)', async () => {
    const shown = shownCommands();
    expect(shown.length).toBeGreaterThan(20);
    expect(shown.map(({ words }) => words[0])).toEqual(expect.arrayContaining(['stats', 'pending', 'dead', 'cancel', 'migrate-slots', 'pause', 'resume', 'schedules']));
    const helps = new Map<string, Promise<{ commands: Set<string>; options: Set<string> }>>();
    const help = (path: readonly string[]) => {
      const key = path.join(' ');
      if (!helps.has(key)) helps.set(key, helpOf(path));
      return helps.get(key)!;
    };
    const global = (await help([])).options;
    expect([...global]).toEqual(expect.arrayContaining(['--url', '--cluster', '--sentinel', '--json']));
    const problems: string[] = [];
    for (const { where, words } of shown) {
      const path: string[] = [];
      for (const word of words) {
        if (word.startsWith('-')) break;
        if (!(await help(path)).commands.has(word)) break;
        path.push(word);
      }
      if (words.length > 0 && path.length === 0 && !words[0]!.startsWith('-')) {
        problems.push(`${where}: durable-timeout ${words.join(' ')}: no command "${words[0]}"`);
        continue;
      }
      const own = (await help(path)).options;
      for (const flag of words.filter((word) => word.startsWith('--')).map((word) => word.split('=')[0]!)) {
        if (!own.has(flag) && !global.has(flag)) problems.push(`${where}: durable-timeout ${words.join(' ')}: ${flag} is not an option of "${path.join(' ')}"`);
      }
    }
    expect(problems).toEqual([]);
  });
});
