// Makes sure the system tools a command needs are on the PATH, installing them with apt-get
// (Debian's packages) when we may, otherwise says how. The tests start their own Redis servers,
// clusters and Sentinel groups (`redis`: redis-server, redis-cli, redis-sentinel), validate
// docker-compose.yml with docker-compose (`compose`) and drive the admin page in a real browser
// (`chromium`).
//
//   node scripts/ensure-tools.mjs redis compose chromium
import { spawnSync } from 'node:child_process';

const tools = {
  redis: {
    commands: ['redis-server', 'redis-cli', 'redis-sentinel'],
    packages: ['redis-server', 'redis-tools', 'redis-sentinel'],
    why: 'Redis 7 or newer; the tests start their own servers, clusters and Sentinel groups',
    mac: 'brew install redis',
  },
  compose: { commands: ['docker-compose'], packages: ['docker-compose'], why: 'docker-compose parses docker-compose.yml in the tests', mac: 'brew install docker-compose' },
  chromium: {
    commands: ['chromium'],
    packages: ['chromium'],
    why: "Debian's chromium, driven headless by playwright-core in the admin page's tests (nothing downloads a browser)",
    mac: 'brew install --cask chromium, then set CHROMIUM_PATH to its binary',
  },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in tools));
if (unknown.length > 0) {
  console.error(`ensure-tools: unknown tool ${unknown.join(', ')} (known: ${Object.keys(tools).join(', ')})`);
  process.exit(2);
}

const has = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const missing = () => wanted.filter((name) => !tools[name].commands.every(has));

if (missing().length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
if (isRoot && hasApt) {
  const packages = missing().flatMap((name) => tools[name].packages);
  console.log(`Installing with apt-get: ${packages.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) break;
  }
  if (missing().length === 0) process.exit(0);
}

console.error(
  [
    'These tools are needed on the PATH:',
    ...missing().map((name) => `  ${tools[name].commands.join(', ')}: ${tools[name].why}`),
    'Install them, then run the command again:',
    `  Debian/Ubuntu:  sudo apt-get install -y ${missing().flatMap((name) => tools[name].packages).join(' ')}`,
    `  macOS:          ${missing().map((name) => tools[name].mac).join(' && ')}`,
  ].join('\n'),
);
process.exit(1);
