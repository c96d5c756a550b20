// The engine's Lua scripts as one TypeScript module, so the built package carries them inside its
// code: nothing at run time reads files beside the code or depends on `import.meta.url` (the
// CommonJS build has none). Used by the package's build (embed-lua.mjs writes the module) and by
// Jest (lua-files.jest.mjs reads the files live, so an edited script is tested without a build).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the `.lua` sources. */
export const commandsDir = fileURLToPath(new URL('../src/commands/', import.meta.url));

/** Path of the generated module (git-ignored; written by `npm run build`). */
export const generatedModule = join(commandsDir, 'lua-files.generated.ts');

/**
 * Every `.lua` file under src/commands, keyed by its path without the extension, relative to that
 * folder and with `/` separators (`claim`, `includes/stored`), in a stable order.
 * @returns {Record<string, string>}
 */
export function readLuaFiles(dir = commandsDir) {
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.lua'))
    .sort();
  return Object.fromEntries(
    files.map((file) => [relative(dir, join(dir, file)).split(sep).join('/').slice(0, -'.lua'.length), readFileSync(join(dir, file), 'utf8')]),
  );
}

/** The TypeScript source of the generated module for `files`. */
export function renderLuaModule(files = readLuaFiles()) {
  const entries = Object.entries(files).map(([name, source]) => `  ${JSON.stringify(name)}: ${JSON.stringify(source)},`);
  return [
    '// Generated from src/commands/**/*.lua by scripts/embed-lua.mjs (`npm run build`). Do not edit: edit the .lua file.',
    '',
    '/** Source of every Lua file under src/commands, keyed by its path without `.lua` (`claim`, `includes/stored`). */',
    'export const LUA_FILES: Readonly<Record<string, string>> = {',
    ...entries,
    '};',
    '',
  ].join('\n');
}
