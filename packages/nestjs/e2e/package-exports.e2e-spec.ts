import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { buildFixtures, repoRoot } from './support/build-fixtures.js';

const run = promisify(execFile);
const packageDir = `${repoRoot}packages/nestjs/`;
const entryPoints = ['@durable-timeout/nestjs', '@durable-timeout/nestjs/terminus', '@durable-timeout/nestjs/testing', '@durable-timeout/nestjs/admin'];

/** Loads every entry point of the built package in a fresh Node process with `how`, and prints their export names. */
async function loadBuilt(how: 'import' | 'require'): Promise<Record<string, string[]>> {
  const script =
    how === 'import'
      ? `const out = {}; for (const name of ${JSON.stringify(entryPoints)}) out[name] = Object.keys(await import(name)).sort();
         console.log(JSON.stringify(out));`
      : `const { createRequire } = await import('node:module'); const require = createRequire(process.cwd() + '/');
         const out = {}; for (const name of ${JSON.stringify(entryPoints)}) out[name] = Object.keys(require(name)).sort();
         console.log(JSON.stringify(out));`;
  // Under the Nest 11 compatibility run, resolve @nestjs/* from the scratch install here too.
  const hook = process.env['DURABLE_TIMEOUT_NEST_IMPORT'];
  const { stdout } = await run(process.execPath, [...(hook ? ['--import', hook] : []), '--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, string[]>;
}

describe('the built @durable-timeout/nestjs package', () => {
  beforeAll(async () => {
    await buildFixtures();
  }, 300_000);

  it('loads every entry point with import()', async () => {
    const loaded = await loadBuilt('import');
    expect(loaded['@durable-timeout/nestjs']).toEqual(
      expect.arrayContaining(['DurableTimeoutModule', 'OnTimeout', 'TimeoutScheduler', 'DURABLE_TIMEOUTS']),
    );
    expect(loaded['@durable-timeout/nestjs/terminus']).toEqual(
      expect.arrayContaining(['DurableTimeoutHealthIndicator', 'DurableTimeoutHealthModule']),
    );
    expect(loaded['@durable-timeout/nestjs/testing']).toEqual(expect.arrayContaining(['DurableTimeoutTestingModule', 'TimeoutTestingClock']));
    expect(loaded['@durable-timeout/nestjs/admin']).toEqual(expect.arrayContaining(['DurableTimeoutAdminModule', 'AdminNotProtectedError']));
  });

  it('loads every entry point with require() (no top-level await anywhere in its graph)', async () => {
    expect(await loadBuilt('require')).toEqual(await loadBuilt('import'));
  });

  it('declares types for every export condition, and imports @nestjs/terminus only under the terminus subpath, in both builds', () => {
    type Target = { types: string; default: string };
    const manifest = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8')) as {
      exports: Record<string, Record<'module-sync' | 'import' | 'require', Target> | string>;
    };
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      if (typeof conditions === 'string') continue;
      for (const target of Object.values(conditions)) {
        expect({ subpath, types: existsSync(`${packageDir}${target.types}`), code: existsSync(`${packageDir}${target.default}`) }).toEqual({ subpath, types: true, code: true });
      }
    }
    for (const build of ['esm', 'cjs']) {
      const importers = (readdirSync(`${packageDir}dist/${build}`, { recursive: true }) as string[])
        .filter((file) => file.endsWith('.js'))
        .filter((file) => /(from |require\()['"]@nestjs\/terminus['"]/.test(readFileSync(`${packageDir}dist/${build}/${file}`, 'utf8')));
      expect(importers.length).toBeGreaterThan(0);
      expect(importers.filter((file) => !file.startsWith('terminus/'))).toEqual([]);
    }
  });
});
