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
  it('says nothing of files of up to 350 lines, nor of specs of any length', () => {
    const result = check({
      'packages/core/src/store/short.ts': 350,
      'packages/core/src/store/long.spec.ts': 900,
      'packages/core/e2e/long.e2e-spec.ts': 900,
      'packages/core/src/durable-timeouts.ts': 350,
    });
    expect(result.status).toBe(0);
    expect(result.output).not.toContain('warning');
    expect(result.output).toContain('No source file under packages/*/src over 350 lines.');
  });

  it('warns, without failing, about a source file of 351 lines, naming the file and what to look at', () => {
    const result = check({ 'packages/cli/src/commands/long.ts': 351, 'packages/core/src/store/lua/long.lua': 400, 'packages/core/src/short.ts': 10 });
    expect(result.status).toBe(0);
    expect(result.output).toContain('warning: packages/cli/src/commands/long.ts: 351 lines, over 350. If it holds more than one role, split it');
    expect(result.output).toContain('warning: packages/core/src/store/lua/long.lua: 400 lines');
    expect(result.output).not.toContain('short.ts');
  });

  it('fails when there is no tree to check', () => {
    const result = spawnSync(process.execPath, [script, join(tmpdir(), 'file-lengths-missing-tree')], { encoding: 'utf8' });
    expect(result.status).toBe(1);
  });
});
