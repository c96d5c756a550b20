import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A code block right after `<!-- file: path -->` in the documentation is that file, to the
 * letter (`<!-- file: path#key -->`: the value of `key` in that JSON file), so the examples are the
 * code the tests compile and run (the README's Nest quick start, the consumer projects).
 */
const documents = ['README.md', ...readdirSync(`${root}docs`).map((name) => `docs/${name}`)].filter((name) => name.endsWith('.md'));
const quoted = documents.flatMap((document) =>
  [...readFileSync(`${root}${document}`, 'utf8').matchAll(/<!-- file: ([^ #]+)(?:#(\w+))? -->\n+```(\w+)\n([\s\S]*?)```/g)].map((match) => ({
    document,
    file: match[1]!,
    key: match[2] ?? '',
    language: match[3]!,
    code: match[4]!,
  })),
);

describe('code blocks of the documentation that name a file', () => {
  it('include the Nest quick start, a feature-module app, its handler spec and its Jest configuration', () => {
    expect(quoted.map(({ file, key }) => (key ? `${file}#${key}` : file))).toEqual(
      expect.arrayContaining([
        'packages/nestjs/e2e/fixtures/quick-start.ts',
        'consumers/nest-app/src/app.module.ts',
        'consumers/nest-app/src/payments.ts',
        'consumers/nest-app/src/payments.spec.ts',
        'consumers/nest11-cjs/package.json#jest',
      ]),
    );
  });

  it.each(quoted)('$document shows $file $key as it is', ({ file, key, code }) => {
    const text = readFileSync(`${root}${file}`, 'utf8');
    if (key) expect(JSON.parse(code)).toEqual((JSON.parse(text) as Record<string, unknown>)[key]);
    else expect(code).toBe(text);
  });
});
