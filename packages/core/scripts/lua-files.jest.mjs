// Jest maps src/commands/lua-files.generated.js to this module (see jest.config.mjs): the specs
// load the .lua files as they are on disk, so an edited script is tested without a build step.
import { readLuaFiles } from './lua-files.mjs';

/** Same shape as the generated module's export. */
export const LUA_FILES = Object.freeze(readLuaFiles());
