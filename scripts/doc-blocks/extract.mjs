// Finds the TypeScript code blocks of the documentation and turns each into a source file for one
// tsc program (scripts/doc-blocks/compile.mjs). A block is compiled as a whole module unless the
// HTML comment right before its fence says otherwise:
//
//   <!-- doc-block: fragment          statements: wrapped in an async function
//   <!-- doc-block: member            class members: wrapped in a class body (extending the
//                                     context's `class DocBlockBase`, if it declares one)
//   <!-- doc-block: fails TS2345      must NOT compile (with the error codes it must raise, if named)
//
// Flags combine (`fragment fails TS2322`). Lines after the first line of the comment, up to `-->`,
// are the block's context: imports and declarations put in front of it, so a reader sees in the
// raw Markdown what the fragment assumes. A block right after `<!-- file: path -->` is that file to
// the letter (scripts/test/readme.spec.ts) and is compiled with its own project, not here.
import { readdirSync, readFileSync, existsSync } from 'node:fs';

/** The documents whose blocks are compiled: README.md, CONTRIBUTING.md, docs/*.md, packages/*\/README.md. */
export function documentPaths(root) {
  const inDir = (dir) => (existsSync(`${root}${dir}`) ? readdirSync(`${root}${dir}`).filter((name) => name.endsWith('.md')).map((name) => `${dir}/${name}`) : []);
  const packages = readdirSync(`${root}packages`)
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(`${root}${path}`));
  return ['README.md', 'CONTRIBUTING.md', ...inDir('docs'), ...packages].filter((path) => existsSync(`${root}${path}`));
}

const FENCE = /^\s*```(\w*)\s*$/;
const MARKER = /^<!-- doc-block:([^\n]*?)(?:-->)?$/;

/**
 * The TypeScript blocks of one document, in order: `{ document, line, code, flags, fails, context, quotedFile }`.
 * `line` is the 1-based line of the opening fence.
 */
export function extractBlocks(document, text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]);
    if (!fence) continue;
    const language = fence[1];
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    if (end >= lines.length) throw new Error(`${document}:${start + 1}: code block is not closed`);
    i = end;
    if (language !== 'ts' && language !== 'typescript') continue;
    const indent = /^\s*/.exec(lines[start])[0].length;
    const code = lines.slice(start + 1, end).map((line) => line.slice(Math.min(indent, /^\s*/.exec(line)[0].length))).join('\n');
    const before = commentBefore(lines, start);
    const block = { document, line: start + 1, code, flags: [], fails: undefined, context: '', quotedFile: undefined };
    if (before?.startsWith('<!-- file:')) {
      block.quotedFile = before.replace(/^<!-- file:\s*/, '').replace(/\s*-->$/, '');
    } else if (before?.startsWith('<!-- doc-block:')) {
      Object.assign(block, parseMarker(before, `${document}:${start + 1}`));
    }
    blocks.push(block);
  }
  return blocks;
}

/** The HTML comment that ends on the line before `fenceLine` (blank lines between allowed), or undefined. */
function commentBefore(lines, fenceLine) {
  let last = fenceLine - 1;
  while (last >= 0 && lines[last].trim() === '') last--;
  if (last < 0 || !lines[last].trimEnd().endsWith('-->')) return undefined;
  let first = last;
  while (first >= 0 && !lines[first].trimStart().startsWith('<!--')) first--;
  if (first < 0) return undefined;
  return lines.slice(first, last + 1).map((line) => line.trim()).join('\n');
}

/** `{ flags, fails, context }` of a `<!-- doc-block: ... -->` comment. */
export function parseMarker(comment, where) {
  const [head, ...rest] = comment.split('\n');
  const headMatch = MARKER.exec(head.trimEnd());
  if (!headMatch) throw new Error(`${where}: unreadable doc-block marker: ${head}`);
  const words = headMatch[1].trim().split(/\s+/).filter(Boolean);
  const flags = [];
  const codes = [];
  for (const word of words) {
    if (word === 'fragment' || word === 'member' || word === 'fails') flags.push(word);
    else if (/^TS\d+$/.test(word) && flags.includes('fails')) codes.push(Number(word.slice(2)));
    else throw new Error(`${where}: unknown doc-block flag "${word}" (fragment, member, fails [TSnnnn...])`);
  }
  if (flags.includes('fragment') && flags.includes('member')) throw new Error(`${where}: a block is a fragment or members, not both`);
  const body = rest.join('\n').replace(/-->\s*$/, '');
  const context = head.trimEnd().endsWith('-->') ? '' : body;
  return { flags, fails: flags.includes('fails') ? codes : undefined, context };
}

/** Splits source text into its import declarations (kept whole, even over several lines) and the rest. */
export function splitImports(source) {
  const lines = source.split('\n');
  const imports = [];
  const rest = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^import\s/.test(lines[i])) {
      const statement = [lines[i]];
      while (!/;\s*(\/\/.*)?$/.test(statement.at(-1)) && !/from\s+['"][^'"]+['"]\s*$/.test(statement.at(-1)) && i + 1 < lines.length) {
        statement.push(lines[++i]);
      }
      imports.push(statement.join('\n'));
    } else {
      rest.push(lines[i]);
    }
  }
  return { imports, rest: rest.join('\n') };
}

/**
 * The source file compiled for a block. Imports of the context and of the block go first; a
 * fragment's statements go into an async function, members into a class; `export {}` keeps every
 * file a module of its own, so blocks never see one another's names.
 */
export function sourceOf(block) {
  const context = splitImports(block.context);
  const own = splitImports(block.code);
  const header = [`// ${block.document}:${block.line}`, ...context.imports, ...own.imports, context.rest, 'export {};'];
  if (block.flags.includes('fragment')) {
    return [...header, 'export async function docBlock(): Promise<void> {', own.rest, '}', ''].join('\n');
  }
  if (block.flags.includes('member')) {
    // The members' `this`: a class named DocBlockBase in the context, when it declares one.
    const base = /\bclass DocBlockBase\b/.test(context.rest) ? ' extends DocBlockBase' : '';
    return [...header, `export class DocBlock${base} {`, own.rest, '}', ''].join('\n');
  }
  return [...header, own.rest, ''].join('\n');
}

/** Every TypeScript block of the documentation under `root` (a path ending in `/`). */
export function allBlocks(root) {
  return documentPaths(root).flatMap((document) => extractBlocks(document, readFileSync(`${root}${document}`, 'utf8')));
}
