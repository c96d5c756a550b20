// Structure step of `npm test` (scripts/run-tests.mjs, step 0): warns about each source file under
// packages/*/src longer than MAX_LINES, with what to look at. A warning, not a failure: a file is
// split where it has a seam (one role a file), never to meet a line count; one long file with one
// job reads better than three short ones that call each other. Specs (*.spec.ts, *.e2e-spec.ts)
// are left out: a spec's length follows what it covers. Exits 1 only when it cannot read the tree.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lines past which a source file gets a warning. */
export const MAX_LINES = 350;

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

/** The files of `root` over the limit, each with its length. */
export function tooLong(root) {
  return sourceFiles(root)
    .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), 'utf8')) }))
    .filter(({ lines }) => lines > MAX_LINES);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The repository, or the folder given (the spec checks a tree of its own).
  const root = process.argv[2] ?? fileURLToPath(new URL('../', import.meta.url));
  const over = tooLong(root);
  if (over.length === 0) {
    console.log(`No source file under packages/*/src over ${MAX_LINES} lines.`);
  } else {
    for (const { file, lines } of over) {
      console.warn(
        `warning: ${file}: ${lines} lines, over ${MAX_LINES}. If it holds more than one role, split it where one ends ` +
          '(a part that returns what happened to its owner), not at an arbitrary line; one file with one job may stay long.',
      );
    }
  }
}
