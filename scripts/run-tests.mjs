// The project's whole test run (`npm test`, after `pretest` made sure of Redis and docker-compose
// and built every workspace). Prints one closing line `N passed, N failed` summed over the steps:
//
//   0. structure: no import cycles in packages/ (dependency-cruiser, .dependency-cruiser.cjs), and
//      no source file under packages/*/src over 350 lines (scripts/file-lengths.mjs);
//      types: the type-level tests of the public API (scripts/type-tests.mjs)
//   1. Jest on the default Node: unit, e2e (real Redis servers and a cluster), nest11 projects
//   2. npm pack of the published packages (their prepack: a clean build)
//   3. Jest `packages` project on the default Node: the tarballs (publint, attw, API reports,
//      npm publish --dry-run), docker-compose.yml, and the four consumer projects
//   4. Node 22 and Node 24 (scripts/node-lines, from the npm registry): the engine's e2e suite and
//      the consumer projects again, on each
//   5. chaos --quick
//
// Arguments after `npm test --` go to the first Jest step (e.g. a test path pattern).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeLines } from './node-lines/install.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const tmp = `${root}.tmp`;
const packs = `${tmp}/packs/`;
const jestBin = `${root}node_modules/jest/bin/jest.js`;
mkdirSync(tmp, { recursive: true });

/** A Jest run on `node` (a binary path), reporting through Jest's own --json file. */
function jestStep(name, node, args, env = {}) {
  const report = `${tmp}/${slug(name)}.json`;
  return {
    name,
    report,
    command: node,
    // Two workers, not Jest's default of (cores - 1) = 1 here: most specs wait on Redis, child
    // processes and timers rather than on the CPU, so two at a time nearly halve the wall time.
    args: [jestBin, '--forceExit', ...(args.includes('--runInBand') ? [] : ['--maxWorkers=2']), '--json', `--outputFile=${report}`, ...args],
    // --forceExit: a suite that leaves a socket open must not hang CI after every test finished;
    // the suites close what they open, this is the safety net.
    env: { NODE_OPTIONS: '--experimental-vm-modules', DURABLE_TIMEOUT_PACKS: packs, ...env },
  };
}

/** The engine's e2e specs and the consumer projects: what runs again on the other Node lines. */
const onEveryNodeLine = ['--selectProjects', 'e2e', 'packages', '--testPathPatterns', 'packages/core/e2e/', 'consumers/'];

const steps = [
  {
    name: 'structure: no import cycles in packages/ (dependency-cruiser)',
    command: process.execPath,
    args: [`${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`, '--config', `${root}.dependency-cruiser.cjs`, 'packages'],
  },
  {
    name: 'structure: no source file under packages/*/src over 350 lines (scripts/file-lengths.mjs)',
    command: process.execPath,
    args: [`${root}scripts/file-lengths.mjs`],
  },
  {
    name: 'types: type-level tests of the public API (tsc)',
    command: process.execPath,
    args: [`${root}scripts/type-tests.mjs`],
  },
  jestStep(`jest: unit, e2e, nest11 (Node ${process.versions.node})`, process.execPath, [
    '--selectProjects',
    'unit',
    'e2e',
    'nest11',
    ...process.argv.slice(2),
  ]),
  {
    name: 'npm pack @durable-timeout/core @durable-timeout/nestjs',
    before: () => {
      rmSync(packs, { recursive: true, force: true });
      mkdirSync(packs, { recursive: true });
    },
    command: 'npm',
    args: ['pack', '--silent', '--pack-destination', packs, '-w', 'packages/core', '-w', 'packages/nestjs'],
  },
  // In band: these specs build and start the same apps and install into the same folders.
  jestStep(`jest: packages and consumers (Node ${process.versions.node})`, process.execPath, ['--selectProjects', 'packages', '--runInBand']),
];

steps.push({
  name: `install ${nodeLines().map((line) => `Node ${line.version}`).join(', ')} (npm registry)`,
  command: 'node',
  args: [`${root}scripts/node-lines/install.mjs`],
});
for (const line of nodeLines()) {
  steps.push(jestStep(`jest on Node ${line.version}: engine e2e and consumers`, line.bin, onEveryNodeLine));
}
steps.push({ name: 'chaos --quick', command: 'node', args: [`${root}tools/chaos/dist/main.js`, '--quick'] });

let passed = 0;
let failed = 0;
let anyStepFailed = false;
const timings = [];
for (const step of steps) {
  const report = step.report ?? `${tmp}/${slug(step.name)}.json`;
  rmSync(report, { force: true });
  console.log(`\n=== ${step.name}`);
  const started = Date.now();
  step.before?.();
  const result = spawnSync(step.command, step.args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...step.env, TEST_RESULT_FILE: report },
  });
  const status = result.status ?? result.signal;
  const counts = readCounts(report, status === 0);
  passed += counts.passed;
  failed += counts.failed;
  if (status !== 0) anyStepFailed = true;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  timings.push(`${step.name}: ${seconds} s`);
  console.log(`=== ${step.name}: ${status === 0 ? 'ok' : `FAILED (exit ${status})`} in ${seconds} s, ${counts.passed} passed, ${counts.failed} failed`);
}

console.log(`\n${timings.join('\n')}`);
if (anyStepFailed && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(anyStepFailed ? 1 : 0);

/**
 * A step's counts: Jest's --json report, or `{ passed, failed }` written by a step to the file in
 * TEST_RESULT_FILE; a step that writes nothing counts as one test, passed when it exits 0.
 */
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

function slug(name) {
  return name.replace(/\W+/g, '-').replace(/^-|-$/g, '').toLowerCase();
}
