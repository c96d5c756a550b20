// `prebuild` of @durable-timeout/core: writes src/commands/lua-files.generated.ts from the .lua
// files. Writes only when the content changed, so `tsc -b` stays up to date otherwise.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generatedModule, renderLuaModule } from './lua-files.mjs';

const source = renderLuaModule();
if (!existsSync(generatedModule) || readFileSync(generatedModule, 'utf8') !== source) {
  writeFileSync(generatedModule, source);
}
