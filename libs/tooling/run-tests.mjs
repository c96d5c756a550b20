// The project's whole test run (`npm test`): the Jest suites (unit, integration against real Redis
// servers, cluster, e2e of the Nest package and the sample apps), then the steps that need their own
// process tree. Prints one closing line `N passed, N failed` summed over every step.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tmp = `${root}.tmp`;
mkdirSync(tmp, { recursive: true });

/**
 * Each step runs one command. A step reports its counts by writing `{ "passed": n, "failed": n }`
 * to the file named by TEST_RESULT_FILE (Jest steps: Jest's own `--json` report); a step that
 * writes nothing counts as one test, passed when it exits 0.
 */
const steps = [
  {
    // --forceExit: a suite that leaves a socket open must not hang CI after every test has finished;
    // the suites close what they open, this is the safety net.
    name: 'jest',
    command: 'npx',
    args: ['jest', '--forceExit', '--json', `--outputFile=${tmp}/jest-report.json`, ...process.argv.slice(2)],
    env: { NODE_OPTIONS: '--experimental-vm-modules' },
    report: `${tmp}/jest-report.json`,
  },
  ...extraSteps(),
];

function extraSteps() {
  const list = [];
  const nest11 = `${root}libs/tooling/nest11-compat.mjs`;
  if (existsSync(nest11)) list.push({ name: 'nest 11 compatibility', command: 'node', args: [nest11] });
  const chaos = `${root}apps/chaos/dist/main.js`;
  if (existsSync(`${root}apps/chaos/src/main.ts`)) {
    list.push({ name: 'chaos --quick', command: 'node', args: [chaos, '--quick'] });
  }
  return list;
}

let passed = 0;
let failed = 0;
let anyStepFailed = false;
for (const step of steps) {
  const report = step.report ?? `${tmp}/${step.name.replace(/\W+/g, '-')}.json`;
  rmSync(report, { force: true });
  console.log(`\n=== ${step.name}`);
  const started = Date.now();
  const result = spawnSync(step.command, step.args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...step.env, TEST_RESULT_FILE: report },
  });
  const counts = readCounts(report, result.status === 0);
  passed += counts.passed;
  failed += counts.failed;
  if (result.status !== 0) anyStepFailed = true;
  console.log(
    `=== ${step.name}: ${result.status === 0 ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`}` +
      ` in ${((Date.now() - started) / 1000).toFixed(1)} s, ${counts.passed} passed, ${counts.failed} failed`,
  );
}

if (anyStepFailed && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(anyStepFailed ? 1 : 0);

function readCounts(file, ok) {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof data.numPassedTests === 'number') {
      return { passed: data.numPassedTests, failed: data.numFailedTests + (data.numRuntimeErrorTestSuites ?? 0) };
    }
    if (typeof data.passed === 'number') return { passed: data.passed, failed: data.failed ?? 0 };
  } catch {
    // no report: count the step itself
  }
  return ok ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}
