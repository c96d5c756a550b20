import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** Folder of the compiled fixture apps (`e2e/fixtures/*.ts` -> `e2e/fixtures/dist/*.js`). */
export const fixturesDist = fileURLToPath(new URL('../fixtures/dist/', import.meta.url));

const lockDir = `${repoRoot}.tmp/nestjs-e2e-build.lock`;
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Builds `@durable-timeout/core` and `@durable-timeout/nestjs` with their own build scripts (both
 * module formats, the Lua scripts embedded), then compiles the fixture apps. Suites run in
 * parallel workers, so the build runs under a lock directory; a second caller waits, then finds
 * `tsc -b` up to date.
 */
export async function buildFixtures(deadlineMs = 240_000): Promise<void> {
  mkdirSync(`${repoRoot}.tmp`, { recursive: true });
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      if (lockAgeMs() > STALE_LOCK_MS) rmSync(lockDir, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`build lock ${lockDir} still held after ${deadlineMs} ms: delete it if no build runs`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await run('npm', ['run', 'build', '--silent', '-w', 'packages/core', '-w', 'packages/nestjs']);
    await run('npx', ['tsc', '-b', 'packages/nestjs/e2e/fixtures']);
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockAgeMs(): number {
  try {
    return Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return 0;
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output}`)),
    );
  });
}
