import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { freePort, RedisServer } from '@durable-timeout/redis-testing';
import { eventually } from '@durable-timeout/sample-app-support';
import { consumerEnv, runOrFail } from '../../consumers/support/commands.js';
import { repoRoot } from '../../consumers/support/packs.js';

/** The Nest CLI (a dev dependency) on the repository's nest-cli.json, as a Nest developer uses it. */
interface NestCliProject {
  type: 'application' | 'library';
  root: string;
  sourceRoot: string;
  compilerOptions: { tsConfigPath: string };
}

const nestCli = JSON.parse(readFileSync(`${repoRoot}nest-cli.json`, 'utf8')) as { monorepo: boolean; projects: Record<string, NestCliProject> };

describe('nest-cli.json', () => {
  it('describes every workspace of the monorepo: apps/* and tools/* as applications, packages/* and libs/* as libraries', () => {
    const workspaces = ['apps', 'tools', 'packages', 'libs'].flatMap((group) =>
      readdirSync(`${repoRoot}${group}`)
        .filter((name) => existsSync(`${repoRoot}${group}/${name}/tsconfig.json`))
        .map((name) => `${group}/${name}`),
    );
    const described = Object.values(nestCli.projects).map((project) => project.root);
    expect(described.sort()).toEqual(workspaces.sort());
    for (const project of Object.values(nestCli.projects)) {
      expect(project.type).toBe(/^(apps|tools)\//.test(project.root) ? 'application' : 'library');
      expect(existsSync(`${repoRoot}${project.compilerOptions.tsConfigPath}`)).toBe(true);
      expect(existsSync(`${repoRoot}${project.sourceRoot}`)).toBe(true);
    }
    expect(nestCli.monorepo).toBe(true);
  });

  it('nest build orders compiles the orders app', async () => {
    await runOrFail('npx', ['nest', 'build', 'orders'], repoRoot);
    expect(existsSync(`${repoRoot}apps/orders/dist/main.js`)).toBe(true);
  }, 120_000);

  it('nest start rides builds and starts the rides app, which answers /health', async () => {
    const redis = await RedisServer.start();
    const port = await freePort();
    const child = spawn('npx', ['nest', 'start', 'rides'], {
      cwd: repoRoot,
      env: consumerEnv({ REDIS_URL: redis.url, PORT: String(port) }),
      stdio: 'pipe',
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const health = await eventually(
        () => fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status, () => 0),
        (status) => status !== 0 || child.exitCode !== null,
        90_000,
      );
      expect({ health, output: health === 200 ? '' : output }).toEqual({ health: 200, output: '' });
    } finally {
      // The CLI runs the app as its child: stop the whole process group.
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      await redis.stop();
    }
  }, 150_000);
});
