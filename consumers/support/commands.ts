import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';

/** Output of a finished command. */
export interface CommandResult {
  code: number | null;
  output: string;
}

/**
 * The environment of a consumer's commands: this process's, with the Node under test first on
 * the PATH (so `npm`, `npx` and the fixtures' scripts run on it), and without what the test runner
 * or the outer `npm test` set for themselves (NODE_OPTIONS=--experimental-vm-modules, npm_*,
 * JEST_WORKER_ID): a consumer project runs as a user runs it.
 */
export function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'NODE_OPTIONS' || name === 'JEST_WORKER_ID' || name.toLowerCase().startsWith('npm_')) continue;
    env[name] = value;
  }
  env['PATH'] = `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
  return { ...env, ...extra };
}

/** Starts `command` in `cwd` with the consumer environment, output captured. */
export function start(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(command, args, { cwd, env: consumerEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs `command` to its end; resolves with its exit code and output (stdout and stderr, interleaved). */
export function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = start(command, args, cwd, env);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Runs `command` and fails with its output when it exits non-zero. */
export async function runOrFail(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.output}`);
  return result.output;
}
