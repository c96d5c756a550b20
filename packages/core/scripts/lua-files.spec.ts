import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandsDir, readLuaFiles, renderLuaModule } from './lua-files.mjs';
import { LUA_FILES } from '../src/commands/lua-files.generated.js';
import { loadScripts } from '../src/commands/index.js';

describe('the embedded Lua scripts', () => {
  it('are every .lua file under src/commands, keyed by path without the extension', () => {
    const files = readLuaFiles();
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['includes/stored']));
    for (const [name, source] of Object.entries(files)) expect(source).toBe(readFileSync(join(commandsDir, `${name}.lua`), 'utf8'));
  });

  it('are read live from disk under Jest, so an edited script is tested without a build', () => {
    expect(LUA_FILES).toEqual(readLuaFiles());
    const scripts = [...loadScripts().values()];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script.lua).not.toMatch(/^--\s*@include\s+[a-z-]+\s*$/m);
  });

  it('follow an edit of a .lua file into the module the build writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lua-files-'));
    try {
      cpSync(commandsDir, dir, { recursive: true, filter: (path) => !path.endsWith('.ts') });
      const [name] = Object.keys(readLuaFiles(dir)).filter((file) => !file.startsWith('includes/'));
      writeFileSync(join(dir, `${name}.lua`), '-- edited\nreturn 1\n');
      const module = renderLuaModule(readLuaFiles(dir));
      expect(module).toContain(`${JSON.stringify(name)}: ${JSON.stringify('-- edited\nreturn 1\n')},`);
      expect(module).not.toContain(JSON.stringify(readFileSync(join(commandsDir, `${name}.lua`), 'utf8')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
