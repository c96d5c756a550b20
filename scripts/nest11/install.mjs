// Global setup of the `nest11` Jest project: installs Nest 11 into this folder from its committed
// package-lock.json when it is missing, and checks that what is installed is Nest 11.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { nest11Dir, nest11Packages } from './mapping.mjs';

export default function installNest11() {
  if (!nest11Packages.every((name) => existsSync(`${nest11Dir}node_modules/@nestjs/${name}/package.json`))) {
    console.log(`\nInstalling Nest 11 into ${nest11Dir}`);
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], {
      cwd: nest11Dir,
      stdio: 'inherit',
    });
    if (result.status !== 0) throw new Error('npm could not install Nest 11 (scripts/nest11); check the network or the npm registry settings');
  }
  const require = createRequire(`${nest11Dir}package.json`);
  const versions = nest11Packages.map((name) => `@nestjs/${name}@${require(`@nestjs/${name}/package.json`).version}`);
  const notEleven = versions.filter((version) => !version.startsWith('@nestjs/config@') && !version.includes('@11.'));
  if (notEleven.length > 0) throw new Error(`expected Nest 11 in ${nest11Dir}, found ${versions.join(', ')}`);
  console.log(`Nest 11 project: ${versions.join(', ')}`);
}
