// The Node lines the test run covers besides the default `node`: Node 22 and Node 24, each
// installed into scripts/node-lines/<major>/node_modules from the npm registry (the `node`
// package, pinned by the folder's package-lock.json), on first use and when the pin changes.
// A new line is a new folder here with the same package.json: nothing else lists them.
//
//   import { nodeLines, installNodeLines } from './node-lines/install.mjs';  -> [{ major, version, bin }]
//   node scripts/node-lines/install.mjs                                      (installs, prints them)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('./', import.meta.url));

/** The Node lines of this folder (installed or not): major, pinned version, path of the binary. */
export function nodeLines() {
  return readdirSync(here)
    .filter((name) => /^\d+$/.test(name))
    .sort()
    .map((major) => {
      const dir = `${here}${major}/`;
      const version = JSON.parse(readFileSync(`${dir}package.json`, 'utf8')).dependencies.node;
      return { major: Number(major), version, dir, bin: `${dir}node_modules/node/bin/node` };
    });
}

/** Installs every Node line of this folder that is missing or not the pinned version; returns them. */
export function installNodeLines() {
  for (const { version: pinned, dir, bin } of nodeLines()) {
    if (versionOf(bin) !== `v${pinned}`) {
      console.log(`Installing Node ${pinned} from the npm registry into ${dir}`);
      const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: 'inherit' });
      if (result.status !== 0 || versionOf(bin) !== `v${pinned}`) {
        throw new Error(`npm could not install Node ${pinned} into ${dir}; check the network or the npm registry settings`);
      }
    }
  }
  return nodeLines();
}

function versionOf(bin) {
  if (!existsSync(bin)) return undefined;
  const result = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of installNodeLines()) console.log(`Node ${line.version}: ${line.bin}`);
}
