import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const source = join(root, 'packages/core/src');

/** Every TypeScript source file under packages/core/src (specs left out), relative to it, with `/`. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) files.push(relative(source, path).split('\\').join('/'));
    }
  };
  walk(source);
  return files.sort();
}

/** The files the "Reading the code" section of docs/ARCHITECTURE.md names (each in backticks, as a path under packages/core/src). */
function mappedFiles(): string[] {
  const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('\n## Reading the code');
  const end = doc.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(0);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const files = [...section.matchAll(/`([\w./-]+\.ts)`/g)].map((match) => match[1]!);
  return [...new Set(files.filter((file) => !file.startsWith('scripts/')))].sort();
}

describe('the code map of docs/ARCHITECTURE.md', () => {
  it('lists every source file of packages/core/src', () => {
    const mapped = new Set(mappedFiles());
    // The generated scripts file exists once built; the map names it either way.
    expect(sourceFiles().filter((file) => !mapped.has(file))).toEqual([]);
  });

  it('lists no file that is not there', () => {
    const present = new Set(sourceFiles());
    const missing = mappedFiles().filter((file) => !present.has(file) && !file.endsWith('.generated.ts'));
    expect(missing).toEqual([]);
  });
});
