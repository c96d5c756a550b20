import { describe, expect, it } from '@jest/globals';
// Plain ES modules of the repository scripts (no type declarations; Jest strips the types).
import { extractBlocks, sourceOf } from '../doc-blocks/extract.mjs';
import { verdictOf } from '../doc-blocks/compile.mjs';

const fence = '```';

describe('doc blocks: extraction', () => {
  const text = [
    '# Title',
    '',
    `${fence}ts`,
    "import { DurableTimeouts } from '@durable-timeout/core';",
    'export const x = 1;',
    fence,
    '',
    '<!-- doc-block: fragment',
    "import type { DurableTimeouts } from '@durable-timeout/core';",
    'declare const timeouts: DurableTimeouts;',
    '-->',
    `${fence}ts`,
    "await timeouts.cancel('payment', 'order-1');",
    fence,
    '<!-- doc-block: fails TS2345 -->',
    `${fence}typescript`,
    "const n: number = 'x';",
    fence,
    '<!-- file: consumers/nest-app/src/payments.ts -->',
    `${fence}ts`,
    'export {};',
    fence,
    `${fence}bash`,
    'npm test',
    fence,
  ].join('\n');
  const blocks = extractBlocks('doc.md', text) as { line: number; flags: string[]; fails?: number[]; context: string; quotedFile?: string; code: string }[];

  it('finds the ts and typescript blocks with their markers, and leaves other languages out', () => {
    expect(blocks.map(({ line, flags, fails, quotedFile }) => ({ line, flags, fails, quotedFile }))).toEqual([
      { line: 3, flags: [], fails: undefined, quotedFile: undefined },
      { line: 12, flags: ['fragment'], fails: undefined, quotedFile: undefined },
      { line: 16, flags: ['fails'], fails: [2345], quotedFile: undefined },
      { line: 20, flags: [], fails: undefined, quotedFile: 'consumers/nest-app/src/payments.ts' },
    ]);
  });

  it('wraps a fragment in an async function, with the imports of its context and its own first', () => {
    const source = sourceOf(blocks[1]) as string;
    expect(source.indexOf("import type { DurableTimeouts }")).toBeLessThan(source.indexOf('declare const timeouts'));
    expect(source).toMatch(/export async function docBlock\(\): Promise<void> \{\nawait timeouts\.cancel/);
  });

  it('refuses an unknown flag', () => {
    expect(() => extractBlocks('doc.md', `<!-- doc-block: fragmnet -->\n${fence}ts\nx;\n${fence}`)).toThrow(/unknown doc-block flag "fragmnet"/);
  });
});

describe('doc blocks: verdicts', () => {
  const block = (fails?: number[]) => ({ document: 'doc.md', line: 3, fails });
  const error = { code: 2345, text: 'TS2345: bad argument' };

  it('a block that must compile fails with its errors', () => {
    expect(verdictOf({ block: block(), errors: [] })).toBeUndefined();
    expect(verdictOf({ block: block(), errors: [error] })).toMatch(/doc\.md:3 does not compile:\n {2}TS2345/);
  });

  it('a block marked "fails" must fail, with the codes it names', () => {
    expect(verdictOf({ block: block([2345]), errors: [error] })).toBeUndefined();
    expect(verdictOf({ block: block([]), errors: [] })).toMatch(/marked "fails" but compiles/);
    expect(verdictOf({ block: block([1241]), errors: [error] })).toMatch(/without TS1241/);
  });
});
