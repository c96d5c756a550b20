import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { parseDemoOptions, type DemoOptions } from './cli/demo-options.js';
import { DemoMessages } from './demo.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';
import { ProcessRegistry } from './processes/process-registry.js';
import { openRedisTarget, type RedisTarget } from './redis/redis-target.js';
import { buildJsonReport } from './report/json-report.js';
import { computeModeFigures, type DemoMode, type ModeFigures } from './report/mode-figures.js';
import { renderTable, tableFootnotes } from './report/report-table.js';
import { judge } from './report/verdict.js';
import { RollingDeployScenario, SCENARIO_TIMINGS } from './scenario/rolling-deploy.scenario.js';

const MODES: DemoMode[] = ['legacy', 'durable'];
/** The built orders app; `ORDERS_APP_ENTRY` points the demo at another build of the same contract. */
const ORDERS_ENTRY_POINT =
  process.env.ORDERS_APP_ENTRY || fileURLToPath(new URL('../../orders/dist/main.js', import.meta.url));

/** Runs the demo; resolves with the process exit code. */
async function main(argv: string[]): Promise<number> {
  let options: DemoOptions;
  try {
    options = parseDemoOptions(argv);
  } catch (error) {
    if (!(error instanceof HarnessError && error.kind === 'usage')) throw error;
    console.error(error.message);
    return 2;
  }
  if (options.help) {
    console.log(DemoMessages.usage());
    return 0;
  }
  if (!existsSync(ORDERS_ENTRY_POINT)) {
    console.error(DemoMessages.ordersAppNotBuilt(ORDERS_ENTRY_POINT));
    return 1;
  }

  const logDir = mkdtempSync(join(tmpdir(), 'durable-timeout-demo-'));
  const registry = new ProcessRegistry();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const runPrefix = `demo-${runId}-`;
  const ownRedis = !process.env.REDIS_URL;
  let redis: RedisTarget | undefined;
  const cleanup = async (): Promise<void> => {
    await registry.killAll();
    // A throwaway server goes with its data; on the user's Redis only this run's keys go.
    if (!ownRedis) await redis?.deleteKeys(runPrefix).catch(() => undefined);
    await redis?.close().catch(() => undefined);
  };
  installInterruptHandlers(cleanup, logDir);

  let ok = false;
  try {
    redis = await openRedisTarget(ownRedis ? undefined : process.env.REDIS_URL);
    const target = redis;
    console.log('durable-timeout demo: a rolling deploy of the orders app, in-memory timers (legacy) vs durable timeouts');
    console.log(`  Redis: ${target.description}`);
    console.log(
      `  Per mode: ${options.orders} orders, payment timeout ${options.timeoutMs} ms, two instances, ` +
        'a rolling restart with 2 SIGTERM and 1 SIGKILL\n',
    );

    const modes: ModeFigures[] = [];
    for (const mode of MODES) {
      const keyPrefix = `${runPrefix}${mode}`;
      const record = await new RollingDeployScenario({
        mode,
        orders: options.orders,
        timeoutMs: options.timeoutMs,
        redisUrl: target.url,
        keyPrefix,
        ordersEntryPoint: ORDERS_ENTRY_POINT,
        logDir,
        registry,
      }).run();
      modes.push(computeModeFigures(record));
      console.log('');
    }

    const verdict = judge(modes);
    console.log(renderTable(modes));
    console.log('');
    for (const line of tableFootnotes(SCENARIO_TIMINGS.leaseMs)) console.log(line);
    console.log('');
    for (const note of verdict.notes) console.log(`Note: ${note}`);
    console.log(verdict.line);
    if (options.jsonFile) {
      const report = buildJsonReport({
        now: new Date(),
        orders: options.orders,
        timeoutMs: options.timeoutMs,
        ownRedis,
        modes,
        verdict,
      });
      writeFileSync(resolve(userCwd(), options.jsonFile), `${JSON.stringify(report, null, 2)}\n`);
      console.log(`Figures written to ${options.jsonFile}`);
    }
    ok = verdict.ok;
  } catch (error) {
    console.error(`\nThe demo stopped: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof HarnessError && error.logFile !== undefined) printLogTail(error.logFile);
  } finally {
    await cleanup();
  }
  if (ok) rmSync(logDir, { recursive: true, force: true });
  else console.error(`Logs of the orders instances: ${logDir}`);
  return ok ? 0 : 1;
}

const LOG_TAIL_LINES = 15;

/** The folder the user ran the command from: npm runs scripts from the package root and says where it was. */
function userCwd(): string {
  return process.env.INIT_CWD || process.cwd();
}

function printLogTail(logFile: string): void {
  try {
    const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES);
    console.error(`Last lines of ${logFile}:\n${lines.map((line) => `  | ${line}`).join('\n')}`);
  } catch {
    // no log yet: the message already names the file
  }
}

function installInterruptHandlers(cleanup: () => Promise<void>, logDir: string): void {
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    // A second Ctrl-C while cleaning up leaves at once; the 'exit' hooks still kill the children.
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: stopping the orders instances and Redis the demo started...`);
    void cleanup().finally(() => {
      rmSync(logDir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

const exitCode = await main(process.argv.slice(2));
process.exitCode = exitCode;
// Everything the demo opened is closed by now; should a stray handle remain, do not hang on it.
setTimeout(() => process.exit(exitCode), 5000).unref();
