import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { freePort, RedisServer } from '@durable-timeout/redis-testing';
import { eventually } from '@durable-timeout/sample-app-support';
import { parse } from 'yaml';
import { run, runOrFail } from '../../consumers/support/commands.js';
import { repoRoot } from '../../consumers/support/packs.js';

/**
 * No Docker engine runs where the tests run, so neither `docker build` nor `docker compose up` is
 * exercised. What is: docker-compose (Debian's package) parses and validates docker-compose.yml;
 * the Dockerfile's build steps are the commands the test run itself runs; every path the image
 * copies and every command the services run exists after that build; and each app service, started
 * from the built tree with the environment the compose file gives it, passes the compose file's
 * own healthcheck command.
 */
interface ComposeService {
  build?: { dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

async function composeConfig(): Promise<{ services: Record<string, ComposeService> }> {
  const output = await runOrFail('docker-compose', ['-f', 'docker-compose.yml', 'config'], repoRoot);
  return parse(output) as { services: Record<string, ComposeService> };
}

/** The instructions of one stage of apps/Dockerfile, continuation lines joined. */
function dockerfileStages(): { from: string; instructions: string[] }[] {
  const lines = readFileSync(`${repoRoot}apps/Dockerfile`, 'utf8').replace(/\\\n/g, ' ').split('\n');
  const stages: { from: string; instructions: string[] }[] = [];
  for (const line of lines.map((text) => text.trim()).filter((text) => text && !text.startsWith('#'))) {
    if (line.startsWith('FROM ')) stages.push({ from: line, instructions: [] });
    else stages.at(-1)!.instructions.push(line);
  }
  return stages;
}

const appServices = (services: Record<string, ComposeService>) => Object.entries(services).filter(([, service]) => service.build);

describe('docker-compose.yml and apps/Dockerfile (validated without a Docker engine)', () => {
  it('docker-compose parses and validates docker-compose.yml', async () => {
    const result = await run('docker-compose', ['-f', 'docker-compose.yml', 'config', '--quiet'], repoRoot);
    expect({ code: result.code, output: result.output.trim() }).toEqual({ code: 0, output: '' });
    const { services } = await composeConfig();
    expect(Object.keys(services).sort()).toEqual(['orders-1', 'orders-2', 'redis', 'rides']);
    for (const [, service] of appServices(services)) {
      expect(service.build?.dockerfile).toBe('apps/Dockerfile');
      expect(service.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    }
  });

  it("builds the image with the test run's own commands: npm install, then npm run build (the step `npm test` runs first)", () => {
    const [build, runtime] = dockerfileStages();
    const runs = build!.instructions.filter((instruction) => instruction.startsWith('RUN ')).map((instruction) => instruction.slice(4));
    expect(runs).toEqual(['npm install --no-audit --no-fund --ignore-scripts', 'npm run build', 'npm prune --omit=dev --no-audit --no-fund --ignore-scripts']);
    const manifest = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts['pretest']).toMatch(/&& npm run build$/);
    expect(readFileSync(`${repoRoot}.ci/run`, 'utf8')).toMatch(/^npm install && npm test$/m);
    expect(runtime!.from).toBe(build!.from.replace(/ AS build$/, ''));
  });

  it('copies into the image only paths that exist after the build, and the services run files that exist', async () => {
    const [, runtime] = dockerfileStages();
    const copied = runtime!.instructions
      .filter((instruction) => instruction.startsWith('COPY --from=build'))
      .map((instruction) => instruction.split(/\s+/).at(-2)!.replace(/^\/repo\//, ''));
    expect(copied.length).toBeGreaterThan(5);
    expect(copied.filter((path) => !existsSync(`${repoRoot}${path}`))).toEqual([]);
    const { services } = await composeConfig();
    for (const [name, service] of appServices(services)) {
      const entry = service.command!.at(-1)!;
      expect({ name, entry, copied: copied.some((path) => entry.startsWith(path)), built: existsSync(`${repoRoot}${entry}`) }).toEqual({ name, entry, copied: true, built: true });
    }
  });

  it.each(['orders-1', 'rides'])('starts %s from the built tree with its compose environment, and its compose healthcheck passes', async (name) => {
    const { services } = await composeConfig();
    const service = services[name]!;
    const redis = await RedisServer.start();
    const env = { ...service.environment!, REDIS_URL: redis.url, PORT: String(await freePort()) };
    const app = spawn(service.command![0]!, service.command!.slice(1), { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: 'pipe' });
    let output = '';
    app.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    app.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const [kind, command, ...args] = service.healthcheck!.test;
      expect(kind).toBe('CMD');
      const check = await eventually(
        () => run(command!, args, repoRoot, env),
        (result) => result.code === 0 || app.exitCode !== null,
        20_000,
      );
      expect({ healthcheck: check.code, running: app.exitCode === null }).toEqual({ healthcheck: 0, running: true });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${output}`, { cause: error });
    } finally {
      app.kill('SIGTERM');
      await new Promise((resolve) => (app.exitCode !== null ? resolve(undefined) : app.once('exit', resolve)));
      await redis.stop();
    }
  }, 60_000);
});
