import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
// A plain ES module of the repository scripts (no type declarations; Jest strips the types).
import { compileDocBlocks, verdictOf } from '../doc-blocks/compile.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Block {
  document: string;
  line: number;
  fails: number[] | undefined;
}
interface Result {
  block: Block;
  file: string;
  errors: { code: number; text: string }[];
}

/**
 * Every TypeScript block of README.md, CONTRIBUTING.md, docs/*.md and packages/*\/README.md,
 * compiled in one tsc program against the built packages (scripts/doc-blocks: how blocks are
 * marked as fragments, members or must-not-compile). Needs `npm run build`.
 */
describe('TypeScript blocks of the documentation', () => {
  let compiled: { results: Result[]; global: string[] };

  beforeAll(() => {
    compiled = compileDocBlocks(root) as { results: Result[]; global: string[] };
  }, 120_000);

  it('are found in every kind of document, and some must fail', () => {
    const documents = new Set(compiled.results.map(({ block }) => block.document));
    expect([...documents]).toEqual(expect.arrayContaining(['README.md', 'docs/NESTJS.md', 'packages/core/README.md', 'packages/nestjs/README.md']));
    expect(compiled.results.some(({ block }) => block.fails !== undefined)).toBe(true);
    expect(compiled.global).toEqual([]);
  });

  it('each compile (or, when marked "fails", fail with the errors named)', () => {
    const problems = compiled.results.map((result) => verdictOf(result) as string | undefined).filter(Boolean);
    expect(problems).toEqual([]);
  });
});
