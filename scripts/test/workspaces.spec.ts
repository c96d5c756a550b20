import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every TypeScript project of the workspaces: <group>/<name>/tsconfig*.json (e2e fixtures aside). */
function workspaceProjects(): string[] {
  return ['packages', 'libs', 'apps', 'tools'].flatMap((group) =>
    readdirSync(`${root}${group}`)
      .filter((name) => existsSync(`${root}${group}/${name}/tsconfig.json`))
      .flatMap((name) =>
        readdirSync(`${root}${group}/${name}`)
          .filter((file) => /^tsconfig(\.[\w-]+)?\.json$/.test(file))
          .map((file) => (file === 'tsconfig.json' ? `${group}/${name}` : `${group}/${name}/${file}`)),
      ),
  );
}

describe('the root tsconfig.json (the solution `npm run build` builds with tsc -b)', () => {
  const { config, error } = ts.readConfigFile(`${root}tsconfig.json`, (path) => readFileSync(path, 'utf8'));

  it('references every TypeScript project of every workspace, so a new package is built (add it there)', () => {
    expect(error).toBeUndefined();
    const referenced = (config.references as { path: string }[]).map((reference) => reference.path);
    expect(referenced.slice().sort()).toEqual(workspaceProjects().sort());
  });

  it('builds nothing itself', () => {
    expect(config.files).toEqual([]);
  });
});
