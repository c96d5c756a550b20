import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../file-lengths.mjs', import.meta.url));
const trees: string[] = [];

/** A tree of its own with `files` (path -> line count), checked by the script. */
function check(files: Record<string, number>): { status: number | null; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'file-lengths-'));
  trees.push(root);
  for (const [file, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), 'const line = 1;\n'.repeat(lines));
  }
  const result = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

afterAll(() => {
  for (const root of trees) rmSync(root, { recursive: true, force: true });
});

describe('the file length check of the structure step', () => {
  it('passes files of up to 350 lines, and specs of any length', () => {
    const result = check({
      'packages/core/src/store/short.ts': 350,
      'packages/core/src/store/long.spec.ts': 900,
      'packages/core/e2e/long.e2e-spec.ts': 900,
      'packages/core/src/durable-timeouts.ts': 350,
    });
    expect(result.status).toBe(0);
  });

  it('fails on a source file of 351 lines and says which file and what to do', () => {
    const result = check({ 'packages/cli/src/commands/long.ts': 351, 'packages/core/src/store/lua/long.lua': 400 });
    expect(result.status).toBe(1);
    expect(result.output).toContain('packages/cli/src/commands/long.ts: 351 lines, over the limit of 350. Split it along a seam');
    expect(result.output).toContain('packages/core/src/store/lua/long.lua: 400 lines');
  });
});
