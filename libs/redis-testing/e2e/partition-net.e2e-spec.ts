import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PartitionNet, PartitionUnavailableError, partitionsExpected, partitionSupport, type PartitionHost } from '@durable-timeout/redis-testing';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

function namespaces(): string[] {
  return spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n').map((line) => line.split(' ')[0] ?? '').filter(Boolean);
}

/** Sends PING from inside `from` to a Redis at `to`: the reply, or the socket error / 'timeout'. */
function pingFrom(net: PartitionNet, from: PartitionHost, to: PartitionHost): string {
  const script =
    `const s = require('node:net').connect(6379, ${JSON.stringify(to.address)});` +
    `s.on('error', (e) => { console.log(e.code); process.exit(0); });` +
    `s.write('PING\\r\\n'); s.on('data', (d) => { console.log(String(d).trim()); process.exit(0); });` +
    `setTimeout(() => { console.log('timeout'); process.exit(0); }, 1000);`;
  const wrapped = net.wrap(from, process.execPath, ['-e', script]);
  return spawnSync(wrapped.command, wrapped.args, { encoding: 'utf8' }).stdout.trim();
}

// Where the machine should run partitions (Linux, root, iproute2), the harness must work; anywhere
// else it must refuse with its typed error, which makes the chaos scenarios "not run".
const expected = partitionsExpected();

describe('PartitionNet', () => {
  let net: PartitionNet | undefined;
  afterEach(async () => {
    await net?.destroy();
    net = undefined;
  });

  // Only the tests this machine can run are declared: none is skipped.
  if (!expected) {
    it('refuses with PartitionUnavailableError where namespaces cannot be made', async () => {
      expect(partitionSupport().supported).toBe(false);
      await expect(PartitionNet.create()).rejects.toBeInstanceOf(PartitionUnavailableError);
    });
    return;
  }

  it('cuts and heals two hosts while the runner still reaches both, then removes everything', async () => {
    net = await PartitionNet.create();
    const server = net.addHost('server');
    const client = net.addHost('client');
    expect(server.address).not.toBe(client.address);
    const redis = await net.startRedis(server);
    const runner = redis.client();
    expect(pingFrom(net, client, server)).toBe('+PONG');

    net.cut([client], [server]);
    expect(pingFrom(net, client, server)).not.toBe('+PONG');
    expect(await runner.ping()).toBe('PONG');

    net.heal([client], [server]);
    expect(pingFrom(net, client, server)).toBe('+PONG');

    const name = net.name;
    await net.destroy();
    expect(namespaces().filter((namespace) => namespace.startsWith(name))).toEqual([]);
    expect(redis.process.exitCode !== null || redis.process.signalCode !== null).toBe(true);
  }, 60_000);

  it('removes its namespaces when the process that made them is told to stop', async () => {
    const script =
      "import { PartitionNet } from '@durable-timeout/redis-testing';" +
      "const net = await PartitionNet.create(); net.addHost('a'); console.log(net.name); setInterval(() => undefined, 1000);";
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const name = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
    expect(namespaces().filter((namespace) => namespace.startsWith(name)).length).toBe(2);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(namespaces().filter((namespace) => namespace.startsWith(name))).toEqual([]);
  }, 60_000);

  it('sweeps the namespaces a killed run left behind', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const stale = `dtp${dead.stdout.trim()}-zzzz-hub`;
    expect(spawnSync('ip', ['netns', 'add', stale]).status).toBe(0);
    net = await PartitionNet.create();
    expect(namespaces()).not.toContain(stale);
  }, 60_000);

});
