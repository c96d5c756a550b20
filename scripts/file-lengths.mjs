// Structure check of `npm test` (scripts/run-tests.mjs, step 0): no source file under
// packages/*/src longer than MAX_LINES, so that each file keeps one role a reader can take in at
// once. Specs (*.spec.ts, *.e2e-spec.ts) are left out: a spec's length follows what it covers.
// Exits 1 and names each file over the limit, with what to do.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Most lines a source file may have. */
export const MAX_LINES = 350;

/**
 * Files allowed over the limit for now, each with the reason. Keep this list short: a file comes
 * off it in the change that splits it.
 */
/** @type {Map<string, string>} */
export const ALLOWED = new Map();

const SOURCE = /\.(?:[cm]?ts|[cm]?js|lua)$/;
const TEST = /\.(?:spec|e2e-spec)\.[cm]?ts$/;

/** Source files under `packages/*\/src` of `root` (paths relative to it, with `/`). */
export function sourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !TEST.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(relative(root, path).split('\\').join('/'));
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const src = join(root, 'packages', pkg.name, 'src');
    try {
      walk(src);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  }
  return files.sort();
}

/** Lines of a text, a last line without a newline included. */
export function lineCount(text) {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The files of `root` over the limit and not allowed, each with its length. */
export function tooLong(root) {
  return sourceFiles(root)
    .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), 'utf8')) }))
    .filter(({ file, lines }) => lines > MAX_LINES && !ALLOWED.has(file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The repository, or the folder given (the spec checks a tree of its own).
  const root = process.argv[2] ?? fileURLToPath(new URL('../', import.meta.url));
  const over = tooLong(root);
  if (over.length === 0) {
    console.log(`No source file under packages/*/src over ${MAX_LINES} lines${ALLOWED.size > 0 ? ` (${ALLOWED.size} allowed for now: ${[...ALLOWED.keys()].join(', ')})` : ''}.`);
  } else {
    for (const { file, lines } of over) {
      console.error(
        `${file}: ${lines} lines, over the limit of ${MAX_LINES}. Split it along a seam of what it does (one role a file: ` +
          'e.g. the Redis store hands its connection, worker, operator and slot-migration calls to modules of their own), ' +
          'not at an arbitrary line. Keep the public API as it is (npm run build && npm run api:check).',
      );
    }
    process.exit(1);
  }
}
