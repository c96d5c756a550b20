// Compiles every TypeScript block of the documentation (scripts/doc-blocks/extract.mjs) in one tsc
// program, one file per block, against the built workspace packages: `@durable-timeout/core`,
// `@durable-timeout/nestjs` and their subpaths resolve through node_modules to packages/*/dist, as
// they would in an application. The compiler settings are an application's strict ones.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { allBlocks, sourceOf } from './extract.mjs';

const require = createRequire(import.meta.url);

/** The settings a block compiles under: what `tsc --init` and `nest new` users have, strict on. */
export const COMPILER_OPTIONS = {
  target: 'ES2023',
  lib: ['es2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node', 'jest'],
};

/**
 * Writes one file per block under `<root>.tmp/doc-blocks/` and compiles them together. Returns
 * `{ blocks, results, global }`: per compiled block its file and error diagnostics (text and code),
 * and diagnostics that belong to no block (a broken set-up fails every block).
 */
export function compileDocBlocks(root) {
  const ts = require(`${root}node_modules/typescript`);
  const dir = `${root}.tmp/doc-blocks/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const blocks = allBlocks(root).filter((block) => block.quotedFile === undefined);
  const files = blocks.map((block, index) => {
    const slug = block.document.replace(/[^A-Za-z0-9]+/g, '-').replace(/-md$/, '').toLowerCase();
    const file = `${dir}${String(index).padStart(3, '0')}-${slug}-${block.line}.ts`;
    writeFileSync(file, sourceOf(block));
    return file;
  });
  const { options, errors } = ts.convertCompilerOptionsFromJson(COMPILER_OPTIONS, dir);
  if (errors.length > 0) throw new Error(errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, '\n')).join('\n'));
  const program = ts.createProgram([...files, fileURLToPath(new URL('./shims.d.ts', import.meta.url))], options);
  const byFile = new Map(files.map((file) => [file, []]));
  const global = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const list = diagnostic.file ? byFile.get(diagnostic.file.fileName) : undefined;
    if (!list) {
      global.push(`${diagnostic.file?.fileName ?? ''} TS${diagnostic.code}: ${text}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const source = diagnostic.file.text.split('\n')[line]?.trim() ?? '';
    list.push({ code: diagnostic.code, text: `TS${diagnostic.code}: ${text}\n    at: ${source}` });
  }
  const results = blocks.map((block, index) => ({ block, file: files[index], errors: byFile.get(files[index]) }));
  return { results, global };
}

/** What is wrong with a compiled block, or undefined: errors where it must compile, none (or not the named ones) where it must fail. */
export function verdictOf({ block, errors }) {
  const where = `${block.document}:${block.line}`;
  if (block.fails === undefined) {
    return errors.length === 0 ? undefined : `${where} does not compile:\n  ${errors.map((error) => error.text).join('\n  ')}`;
  }
  if (errors.length === 0) return `${where} is marked "fails" but compiles`;
  const missing = block.fails.filter((code) => !errors.some((error) => error.code === code));
  if (missing.length > 0) {
    return `${where} fails, but without ${missing.map((code) => `TS${code}`).join(', ')}:\n  ${errors.map((error) => error.text).join('\n  ')}`;
  }
  return undefined;
}
