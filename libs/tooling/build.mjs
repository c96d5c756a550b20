// Builds every workspace that has TypeScript sources, in dependency order (tsc -b follows the
// project references), then copies the engine's Lua scripts next to the compiled code.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const order = ['libs', 'packages', 'apps'];
const projects = [];
for (const group of order) {
  for (const name of readdirSync(`${root}${group}`).sort()) {
    const dir = `${group}/${name}`;
    if (existsSync(`${root}${dir}/tsconfig.json`) && hasSources(`${root}${dir}/src`)) projects.push(dir);
  }
}
const extra = process.argv.slice(2);
const result = spawnSync('npx', ['tsc', '-b', ...projects, ...extra], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
await import('./copy-assets.mjs');

function hasSources(dir) {
  if (!existsSync(dir)) return false;
  return readdirSync(dir, { recursive: true }).some((file) => String(file).endsWith('.ts'));
}
