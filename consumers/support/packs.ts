import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runOrFail } from './commands.js';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The packed tarballs of the published packages, by package name. */
export type Tarballs = Record<'@durable-timeout/core' | '@durable-timeout/nestjs' | '@durable-timeout/cli', string>;

const tarballNames: Tarballs = {
  '@durable-timeout/core': 'durable-timeout-core-',
  '@durable-timeout/nestjs': 'durable-timeout-nestjs-',
  '@durable-timeout/cli': 'durable-timeout-cli-',
};

/**
 * `npm pack` of the three packages (each runs its `prepack`: a clean build), as `npm publish` would
 * upload them. A run of `npm test` packs once (scripts/run-tests.mjs sets DURABLE_TIMEOUT_PACKS to
 * that folder) and every Node version installs the same tarballs; alone, a spec packs for itself.
 */
export async function packedTarballs(): Promise<Tarballs> {
  const given = process.env['DURABLE_TIMEOUT_PACKS'];
  const dir = given ?? `${repoRoot}.tmp/packs/`;
  if (!given || !hasAll(dir)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await runOrFail('npm', ['pack', '--silent', '--pack-destination', dir, '-w', 'packages/core', '-w', 'packages/nestjs', '-w', 'packages/cli'], repoRoot);
  }
  const files = readdirSync(dir);
  const find = (prefix: string): string => {
    const file = files.find((name) => name.startsWith(prefix) && name.endsWith('.tgz'));
    if (!file) throw new Error(`no ${prefix}*.tgz in ${dir} after npm pack`);
    return `${dir.endsWith('/') ? dir : `${dir}/`}${file}`;
  };
  return {
    '@durable-timeout/core': find(tarballNames['@durable-timeout/core']),
    '@durable-timeout/nestjs': find(tarballNames['@durable-timeout/nestjs']),
    '@durable-timeout/cli': find(tarballNames['@durable-timeout/cli']),
  };
}

function hasAll(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const files = readdirSync(dir);
  return Object.values(tarballNames).every((prefix) => files.some((name) => name.startsWith(prefix) && name.endsWith('.tgz')));
}
