// Makes sure `redis-server` and `redis-cli` are on the PATH before the tests run: the suite starts
// its own throwaway servers and clusters. Installs them with apt-get when we may, otherwise says how.
import { spawnSync } from 'node:child_process';

const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;

if (has('redis-server') && has('redis-cli')) {
  process.exit(0);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;

if (isRoot && hasApt) {
  console.log('redis-server is not on the PATH: installing it with apt-get (redis-server, redis-tools)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', 'redis-server', 'redis-tools']]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) break;
  }
  if (has('redis-server') && has('redis-cli')) process.exit(0);
}

console.error(
  [
    'The tests need `redis-server` and `redis-cli` (Redis 7 or newer) on the PATH; they start their own servers.',
    'Install them, then run the tests again:',
    '  Debian/Ubuntu:  sudo apt-get install -y redis-server',
    '  macOS:          brew install redis',
  ].join('\n'),
);
process.exit(1);
