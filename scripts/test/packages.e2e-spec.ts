import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { run } from '../../consumers/support/commands.js';
import { packedTarballs, repoRoot, type Tarballs } from '../../consumers/support/packs.js';

/**
 * The tarballs `npm publish` would upload, checked as a registry user would meet them: what they
 * hold, publint and @arethetypeswrong/cli (attw) finding nothing, `npm publish --dry-run` clean,
 * and the public API unchanged against the committed API reports (scripts/api-report.mjs).
 */
const packages = [
  { name: '@durable-timeout/core', dir: 'packages/core', subpaths: ['.', './testing', './otel'] },
  { name: '@durable-timeout/nestjs', dir: 'packages/nestjs', subpaths: ['.', './admin', './terminus', './testing'] },
] as const;
/** Every published package: the two libraries (dual ESM and CommonJS builds) and the command line (ESM only). */
const published = [
  ...packages.map(({ name, subpaths }) => ({ name, subpaths: subpaths as readonly string[], attwProfile: 'strict' })),
  { name: '@durable-timeout/cli', subpaths: ['.'] as readonly string[], attwProfile: 'esm-only' },
] as const;

let tarballs: Tarballs;

beforeAll(async () => {
  tarballs = await packedTarballs();
}, 300_000);

/** The file names in a tarball, without the leading `package/`. */
function filesOf(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^package\//, ''));
}

/** A file of a tarball, as text. */
function fileOf(tarball: string, path: string): string {
  return execFileSync('tar', ['-xzOf', tarball, `package/${path}`], { encoding: 'utf8' });
}

describe.each(packages)('the $name tarball', ({ name, dir, subpaths }) => {
  it('holds the two builds with their declarations, README, LICENSE, CHANGELOG and package.json; no build leftovers, sources, maps or tests', () => {
    const files = filesOf(tarballs[name]);
    const outside = files.filter((file) => !file.startsWith('dist/esm/') && !file.startsWith('dist/cjs/'));
    expect(outside.sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
    const leftovers = files.filter((file) => /\.(tsbuildinfo|map|ts|lua)$/.test(file) && !file.endsWith('.d.ts'));
    expect(leftovers).toEqual([]);
    expect(files.filter((file) => /spec|contract|fixture|__tests__|\/test\//.test(file))).toEqual([]);
    const esm = files.filter((file) => file.startsWith('dist/esm/')).map((file) => file.slice('dist/esm/'.length));
    const cjs = files.filter((file) => file.startsWith('dist/cjs/') && file !== 'dist/cjs/package.json').map((file) => file.slice('dist/cjs/'.length));
    expect(cjs.sort()).toEqual(esm.sort());
    for (const js of esm.filter((file) => file.endsWith('.js'))) expect(esm).toContain(js.replace(/\.js$/, '.d.ts'));
    expect(JSON.parse(fileOf(tarballs[name], 'dist/cjs/package.json'))).toEqual({ type: 'commonjs' });
  });

  it('declares what a registry page and a bundler need: repository, homepage, bugs, keywords, sideEffects, engines, exports per module format', () => {
    const manifest = JSON.parse(fileOf(tarballs[name], 'package.json')) as Record<string, any>;
    expect(manifest).toMatchObject({
      license: 'MIT',
      sideEffects: false,
      repository: { type: 'git', url: 'git+https://github.com/durable-timeout/durable-timeout.git', directory: dir },
      homepage: expect.stringMatching(/^https:\/\//),
      bugs: { url: expect.stringMatching(/^https:\/\//) },
      engines: { node: expect.stringContaining('>=22') },
      main: './dist/cjs/index.js',
      types: './dist/cjs/index.d.ts',
      publishConfig: { access: 'public' },
    });
    expect(manifest['keywords'].length).toBeGreaterThan(3);
    expect(Object.keys(manifest['exports'])).toEqual([...subpaths, './package.json']);
    for (const subpath of subpaths) expect(Object.keys(manifest['exports'][subpath])).toEqual(['module-sync', 'import', 'require']);
  });
});

describe.each(published)('the $name tarball, as every published package', ({ name, subpaths, attwProfile }) => {
  it('has a LICENSE equal to the repository one, and a README whose links are all absolute', () => {
    expect(fileOf(tarballs[name], 'LICENSE')).toBe(readFileSync(`${repoRoot}LICENSE`, 'utf8'));
    const readme = fileOf(tarballs[name], 'README.md');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !/^https:\/\//.test(target))).toEqual([]);
    for (const target of targets.filter((link) => link.startsWith('https://github.com/durable-timeout/durable-timeout/blob/main/'))) {
      const path = target.slice('https://github.com/durable-timeout/durable-timeout/blob/main/'.length).split('#')[0]!;
      expect({ target, exists: (() => { try { return readFileSync(`${repoRoot}${path}`).length > 0; } catch { return false; } })() }).toEqual({ target, exists: true });
    }
  });

  it('passes publint with nothing to report, suggestions included', async () => {
    const tarball = readFileSync(tarballs[name]);
    const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, level: 'suggestion', strict: true });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg)}`)).toEqual([]);
  });

  it('passes @arethetypeswrong/cli for every entry point and resolution mode (the libraries: node10, node16 CJS and ESM, bundler; the command line: ESM)', async () => {
    const result = await run(process.execPath, [`${repoRoot}node_modules/@arethetypeswrong/cli/dist/index.js`, tarballs[name], '--format', 'json', '--profile', attwProfile], repoRoot);
    const report = JSON.parse(result.output.slice(result.output.indexOf('{'))) as { analysis: { problems: unknown[]; entrypoints: Record<string, unknown> } };
    // An ESM-only package is not for require() before Node 20.19 (node10, node16-cjs): the esm-only profile skips those.
    const skipped = attwProfile === 'esm-only' ? ['node10', 'node16-cjs'] : [];
    expect(report.analysis.problems.filter((problem) => !skipped.includes((problem as { resolutionKind?: string }).resolutionKind ?? ''))).toEqual([]);
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual([...subpaths, './package.json'].sort());
    expect(result.code).toBe(0);
  }, 60_000);

  it('publishes cleanly in a dry run (npm publish --dry-run of the tarball: no warning, no error)', async () => {
    const result = await run('npm', ['publish', '--dry-run', '--ignore-scripts', tarballs[name]], repoRoot);
    expect(result.code).toBe(0);
    // Not about the package: this machine's npm configuration, and no registry login in a dry run.
    const aboutTheMachine = /Unknown user config|requires you to be logged in/;
    expect(result.output.split('\n').filter((line) => /^npm (warn|error|ERR!)/i.test(line) && !aboutTheMachine.test(line))).toEqual([]);
    expect(result.output).toContain(`${name}@`);
  }, 60_000);
});

describe('@durable-timeout/cli', () => {
  const tarball = (): string => tarballs['@durable-timeout/cli'];

  it('holds its build with declarations, README, LICENSE, CHANGELOG and package.json; no build leftovers, sources, maps or tests', () => {
    const files = filesOf(tarball());
    expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
    expect(files.filter((file) => /\.(tsbuildinfo|map|ts)$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => /\.spec\.|e2e-spec|fixture|__tests__|\/test\//.test(file))).toEqual([]);
    const built = files.filter((file) => file.startsWith('dist/'));
    for (const js of built.filter((file) => file.endsWith('.js'))) expect(built).toContain(js.replace(/\.js$/, '.d.ts'));
    expect(fileOf(tarball(), 'dist/main.js').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('declares the durable-timeout command, its ESM entry point, and a caret range of the current core', () => {
    const manifest = JSON.parse(fileOf(tarball(), 'package.json')) as Record<string, any>;
    const core = JSON.parse(readFileSync(`${repoRoot}packages/core/package.json`, 'utf8')) as { version: string };
    expect(manifest).toMatchObject({
      license: 'MIT',
      type: 'module',
      bin: { 'durable-timeout': './dist/main.js' },
      repository: { type: 'git', url: 'git+https://github.com/durable-timeout/durable-timeout.git', directory: 'packages/cli' },
      engines: { node: expect.stringContaining('>=22') },
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
      publishConfig: { access: 'public' },
    });
    expect(manifest['dependencies']['@durable-timeout/core']).toBe(`^${core.version}`);
  });
});

describe('@durable-timeout/core', () => {
  it('embeds the .lua files as they are now in both builds of the tarball (the build regenerates them; nothing reads .lua at run time)', async () => {
    const { readLuaFiles } = (await import(`${repoRoot}packages/core/scripts/lua-files.mjs`)) as { readLuaFiles(): Record<string, string> };
    const onDisk = readLuaFiles();
    const esm = fileOf(tarballs['@durable-timeout/core'], 'dist/esm/commands/lua-files.generated.js');
    const cjs = fileOf(tarballs['@durable-timeout/core'], 'dist/cjs/commands/lua-files.generated.js');
    for (const [name, source] of Object.entries(onDisk)) {
      expect({ name, esm: esm.includes(JSON.stringify(source)), cjs: cjs.includes(JSON.stringify(source)) }).toEqual({ name, esm: true, cjs: true });
    }
    const runtime = [...filesOf(tarballs['@durable-timeout/core'])].filter((file) => file.endsWith('.js'));
    const readers = runtime.filter((file) => /import\.meta\.url|readFileSync|__dirname/.test(fileOf(tarballs['@durable-timeout/core'], file)));
    expect(readers).toEqual([]);
  });
});

describe('@durable-timeout/nestjs', () => {
  it('depends on the core with a caret range of its current version', () => {
    const core = JSON.parse(readFileSync(`${repoRoot}packages/core/package.json`, 'utf8')) as { version: string };
    const nest = JSON.parse(fileOf(tarballs['@durable-timeout/nestjs'], 'package.json')) as { dependencies: Record<string, string> };
    expect(nest.dependencies['@durable-timeout/core']).toBe(`^${core.version}`);
  });
});

describe('the API reports (packages/*/api/*.api.md)', () => {
  it('match the public API of every entry point (after an intended change: npm run api:update, commit the reports)', async () => {
    const result = await run(process.execPath, ['scripts/api-report.mjs'], repoRoot);
    expect({ code: result.code, output: result.output }).toEqual({ code: 0, output: expect.not.stringContaining('API CHANGED') });
  }, 180_000);
});
