import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where the packages' READMEs (shown on npm, so with absolute links) point for a file of the repository. */
const REPOSITORY = 'https://github.com/durable-timeout/durable-timeout/blob/main/';

/** The Markdown documents of the repository: README.md, CONTRIBUTING.md, docs/ and every workspace's README.md. */
function documents(): string[] {
  const inDir = (dir: string): string[] => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)) : []);
  const readmes = ['apps', 'consumers', 'libs', 'packages', 'tools'].flatMap((dir) =>
    [dir, ...inDir(dir).map((name) => `${dir}/${name}`)].map((folder) => `${folder}/README.md`).filter((path) => existsSync(join(root, path))),
  );
  return ['README.md', 'CONTRIBUTING.md', ...inDir('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`), ...readmes];
}

/** The anchors GitHub gives the headings of a Markdown text (code blocks left out), plus explicit `<a name|id>`. */
function anchorsOf(text: string): Set<string> {
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose.matchAll(/^#{1,6} (.*)$/gm)) {
    const slug = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, name] of prose.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(name!);
  return anchors;
}

/**
 * The links of `document` (a path relative to the repository) that name no file of the
 * repository, or an anchor that is no heading of the Markdown file they name. Relative links, and
 * absolute ones into the repository's main branch; other sites are not fetched.
 */
function brokenLinks(document: string, text: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, (block) => block.replace(/[^\n]/g, ' '));
  for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = match[1]!;
    let target: string;
    if (href.startsWith(REPOSITORY)) target = href.slice(REPOSITORY.length);
    else if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    else target = href.startsWith('#') ? `${document}${href}` : normalize(join(dirname(document), href)).split('\\').join('/');
    const [path = '', anchor] = target.split('#', 2);
    const line = prose.slice(0, match.index).split('\n').length;
    const content = read(path);
    if (content === undefined) broken.push(`${document}:${line}: ${href} (no file ${path})`);
    else if (anchor && path.endsWith('.md') && !anchorsOf(content).has(decodeURIComponent(anchor))) {
      broken.push(`${document}:${line}: ${href} (no heading #${anchor} in ${path})`);
    }
  }
  return broken;
}

/** A file or folder of the repository: its text ('' for a folder), or undefined when there is none. */
function readRepositoryFile(path: string): string | undefined {
  const full = join(root, path);
  if (relative(root, full).startsWith('..') || !existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

describe('links of the documentation', () => {
  it('name files that exist, and headings that exist in them (relative links, and absolute ones into the repository)', () => {
    const docs = documents();
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/CONFIGURATION.md', 'packages/cli/README.md', 'apps/demo/README.md']));
    const broken = docs.flatMap((document) => brokenLinks(document, readFileSync(join(root, document), 'utf8'), readRepositoryFile));
    expect(broken).toEqual([]);
  });

  it('are reported when the file or the heading is missing, and not for code blocks or other sites (the check itself)', () => {
    const files: Record<string, string> = { 'docs/A.md': '# A\n\n## Connection URLs\n\n## Races\n\n## Races\n', 'README.md': '' };
    const text = [
      '[ok](docs/A.md#connection-urls) [second](docs/A.md#races-1) [file](docs/A.md) [top](#) [site](https://example.com/x#y)',
      `[abs](${REPOSITORY}docs/A.md#races) [gone](docs/B.md) [anchor](docs/A.md#connection-url) [absent](${REPOSITORY}docs/A.md#nope)`,
      '```md',
      '[in a block](docs/none.md)',
      '```',
    ].join('\n');
    expect(brokenLinks('README.md', text, (path) => files[path])).toEqual([
      'README.md:2: docs/B.md (no file docs/B.md)',
      'README.md:2: docs/A.md#connection-url (no heading #connection-url in docs/A.md)',
      `README.md:2: ${REPOSITORY}docs/A.md#nope (no heading #nope in docs/A.md)`,
    ]);
  });
});
