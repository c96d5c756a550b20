import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// Plain ES modules of the repository scripts and of the built tools (no type declarations; Jest strips the types).
import { commandsOf, figuresWithoutCommand, parseNpmRun } from '../doc-blocks/commands.mjs';
import { documentPaths } from '../doc-blocks/extract.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const documents = [...(documentPaths(root) as string[]), 'apps/demo/README.md'];
const rootScripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

interface Mention {
  document: string;
  line: number;
  command: string;
}

/**
 * The commands the documentation names exist, with their arguments (`npm run bench -- --only X`
 * names a real `--only` value, a path given to `node` or to `npm run jest --` is there), and every
 * table of measured figures says which command produced it. Needs the build (the tools' argument
 * parsers are read from tools/*\/dist).
 */
describe('commands named by the documentation', () => {
  const mentions = documents.flatMap((document) => commandsOf(document, read(document)) as Mention[]);

  it('are found (npm test, the bench, chaos, jest and node scripts)', () => {
    const commands = mentions.map(({ command }) => command);
    expect(commands).toEqual(expect.arrayContaining(['npm test', 'npm run demo']));
    expect(commands.some((command) => command.startsWith('npm run bench -- --only'))).toBe(true);
    expect(commands.some((command) => command.startsWith('npm run chaos -- --only'))).toBe(true);
  });

  it('each exist, with the arguments they are given', async () => {
    const { parseBenchArgs, USAGE } = (await import(`${root}tools/bench/dist/cli-options.js`)) as {
      parseBenchArgs(argv: string[]): { only: string[] };
      USAGE: string;
    };
    const benchSystems = /--only LIST\s+systems to run: (.*)/.exec(USAGE)![1]!.split(/,\s*/);
    const { parseOptions } = (await import(`${root}tools/chaos/dist/cli-options.js`)) as { parseOptions(argv: string[], known: string[]): unknown };
    const { SCENARIOS, ON_REQUEST } = (await import(`${root}tools/chaos/dist/scenarios/index.js`)) as Record<string, { name: string }[]>;
    const scenarioNames = [...SCENARIOS!, ...ON_REQUEST!].map(({ name }) => name);
    const jestProjects = ['unit', 'e2e', 'packages', 'nest11'];

    const problems: string[] = [];
    for (const { document, line, command } of mentions) {
      const where = `${document}:${line} \`${command}\``;
      try {
        if (command.startsWith('node ')) {
          // A repository script (a path with a folder); `node app.mts` is the reader's own file.
          const script = command.split(/\s+/)[1]!;
          if (script.includes('/') && !existsSync(`${root}${script}`)) problems.push(`${where}: no file ${script}`);
          continue;
        }
        const { script, workspace, args } = parseNpmRun(command) as { script: string; workspace?: string; args: string[] };
        const scripts = workspace ? (JSON.parse(read(`${workspace}/package.json`)) as { scripts: Record<string, string> }).scripts : rootScripts;
        if (!(script in scripts)) {
          problems.push(`${where}: no npm script "${script}"${workspace ? ` in ${workspace}` : ''}`);
          continue;
        }
        const concrete = args.filter((arg) => !/^(\.\.\.|\[.*|.*\]|[A-Z]+|<.*>|\w+\.(json|md)|prof|bench-?\w*)$/.test(arg));
        if (script === 'bench') {
          const { only } = parseBenchArgs(args.map((arg) => (arg === 'FILE' || arg === 'DIR' ? 'x' : arg)));
          const unknown = only.filter((name) => !benchSystems.includes(name));
          if (unknown.length > 0) problems.push(`${where}: no bench system ${unknown.join(', ')} (${benchSystems.join(', ')})`);
        } else if (script === 'chaos') {
          parseOptions(args, scenarioNames);
        } else if (script === 'jest') {
          for (let i = 0; i < concrete.length; i++) {
            const arg = concrete[i]!;
            if (arg === '--selectProjects') {
              const project = concrete[++i]!;
              if (!jestProjects.includes(project)) problems.push(`${where}: no Jest project ${project}`);
            } else if (!arg.startsWith('-') && !existsSync(`${root}${arg}`)) problems.push(`${where}: no path ${arg}`);
          }
        }
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('count the chaos scenarios as the suite has them', async () => {
    const { SCENARIOS } = (await import(`${root}tools/chaos/dist/scenarios/index.js`)) as { SCENARIOS: unknown[] };
    const counts = documents.flatMap((document) =>
      [...read(document).matchAll(/(\d+) (?:fault-injection )?scenarios\b(?! \d)/g)]
        .filter((match) => !/(first|the other|of these) $/.test(read(document).slice(Math.max(0, match.index! - 12), match.index)))
        .map((match) => ({ document, count: Number(match[1]) })),
    );
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.filter(({ count }) => count !== SCENARIOS.length)).toEqual([]);
  });

  it('every table of measured figures says which command produced it', () => {
    const problems = documents.flatMap((document) => figuresWithoutCommand(document, read(document)) as string[]);
    expect(problems).toEqual([]);
  });
});
