// tsc does not copy non-TypeScript files: the engine's Lua scripts are read at run time from
// dist/commands, beside the compiled code.
import { cpSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const from = `${root}packages/core/src/commands`;
if (existsSync(from)) {
  cpSync(from, `${root}packages/core/dist/commands`, {
    recursive: true,
    filter: (src) => !src.includes('.') || src.endsWith('.lua'),
  });
}
