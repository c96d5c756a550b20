// The project's whole test run (`npm test`, after `pretest` made sure of Redis and docker-compose
// and built every workspace). Prints one closing line `N passed, N failed` summed over the steps,
// after the time of each step and of each phase.
//
// The supported Node lines are those of scripts/node-lines (Node 22 and 24, from the npm registry;
// the machine's own `node` only runs this script, npm and the build). The oldest line runs
// everything; each newer line runs again what differs by Node version: module loading (ESM and
// CommonJS builds, the consumer projects, built code started as a child process).
//
// Phases run one after the other; the lanes of a phase run at the same time (each lane's steps in
// order, the output of a step that shares the machine printed when it ends):
//   1. structure: no import cycles in packages/ and the core's layers (dependency-cruiser,
//      .dependency-cruiser.cjs), a warning for each source file under packages/*/src over 350
//      lines (scripts/file-lengths.mjs); types: the type-level tests of the public API
//      (scripts/type-tests.mjs); lock files: complete for every platform and in sync
//      (scripts/lock.mjs --check) | install the Node lines
//   2. npm pack of the published packages (their prepack: a clean build, so before any step that
//      runs built code)
//   3. Jest: unit, e2e (real Redis servers and clusters), nest11 projects
//   4. Jest `packages` project: the tarballs (publint, attw, API reports, npm publish --dry-run),
//      docker-compose.yml and the four consumer projects; then, on each newer line, the consumer
//      projects and the specs that load built code | chaos --quick
//
// Arguments after `npm test --` go to the Jest step of phase 3 (e.g. a test path pattern).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeLines } from './node-lines/install.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const tmp = `${root}.tmp`;
const packs = `${tmp}/packs/`;
const jestBin = `${root}node_modules/jest/bin/jest.js`;
mkdirSync(tmp, { recursive: true });

const [oldest, ...newer] = nodeLines();

/** A Jest run on `line` (a Node line of scripts/node-lines), reporting through Jest's own --json file. */
function jestStep(name, line, args, env = {}) {
  const fullName = `jest on Node ${line.version}: ${name}`;
  const report = `${tmp}/${slug(fullName)}.json`;
  return {
    name: fullName,
    report,
    command: line.bin,
    // Two workers, not Jest's default of (cores - 1) = 1 here: most specs wait on Redis, child
    // processes and timers rather than on the CPU, so two at a time nearly halve the wall time.
    // --forceExit: a suite that leaves a socket open must not hang CI after every test finished;
    // the suites close what they open, this is the safety net.
    args: [jestBin, '--forceExit', ...(args.includes('--runInBand') ? [] : ['--maxWorkers=2']), '--json', `--outputFile=${report}`, ...args],
    env: { NODE_OPTIONS: '--experimental-vm-modules', DURABLE_TIMEOUT_PACKS: packs, ...env },
  };
}

/** What runs again on each newer Node line: the consumer projects and the specs that load built code. */
const differsByNode = [
  '--selectProjects', 'e2e', 'packages',
  '--testPathPatterns',
  'consumers/',
  'packages/core/e2e/engine-lifecycle',
  'packages/cli/e2e/',
  'packages/nestjs/e2e/(package-exports|quick-start)',
];

const phases = [
  {
    name: 'structure, types, Node lines',
    lanes: [
      [
        {
          name: "structure: no import cycles in packages/, the core's layers (dependency-cruiser)",
          command: process.execPath,
          args: [`${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`, '--config', `${root}.dependency-cruiser.cjs`, 'packages'],
        },
        {
          name: 'structure: warns about source files under packages/*/src over 350 lines (scripts/file-lengths.mjs)',
          command: process.execPath,
          args: [`${root}scripts/file-lengths.mjs`],
        },
        {
          name: 'types: type-level tests of the public API (tsc)',
          command: process.execPath,
          args: [`${root}scripts/type-tests.mjs`],
        },
        {
          name: 'lock files: npm ci accepts each, npm install leaves each unchanged (scripts/lock.mjs --check)',
          command: process.execPath,
          args: [`${root}scripts/lock.mjs`, '--check'],
        },
      ],
      [
        {
          name: `install ${[oldest, ...newer].map((line) => `Node ${line.version}`).join(', ')} (npm registry)`,
          command: process.execPath,
          args: [`${root}scripts/node-lines/install.mjs`],
        },
      ],
    ],
  },
  {
    name: 'npm pack',
    lanes: [
      [
        {
          name: 'npm pack @durable-timeout/core @durable-timeout/nestjs @durable-timeout/cli',
          before: () => {
            rmSync(packs, { recursive: true, force: true });
            mkdirSync(packs, { recursive: true });
          },
          command: 'npm',
          args: ['pack', '--silent', '--pack-destination', packs, '-w', 'packages/core', '-w', 'packages/nestjs', '-w', 'packages/cli'],
        },
      ],
    ],
  },
  {
    name: 'unit, e2e, nest11',
    lanes: [[jestStep('unit, e2e, nest11', oldest, ['--selectProjects', 'unit', 'e2e', 'nest11', ...process.argv.slice(2)])]],
  },
  {
    name: 'packages, consumers, newer Node lines, chaos',
    lanes: [
      [
        // In band: these specs build and start the same apps and install into the same folders
        // (so the newer lines' runs of them follow, in the same lane).
        jestStep('packages and consumers', oldest, ['--selectProjects', 'packages', '--runInBand']),
        ...newer.map((line) => jestStep('consumers and the specs that load built code', line, differsByNode)),
      ],
      [{ name: `chaos --quick (Node ${oldest.version})`, command: oldest.bin, args: [`${root}tools/chaos/dist/main.js`, '--quick'] }],
    ],
  },
];

let passed = 0;
let failed = 0;
let anyStepFailed = false;
const timings = [];
for (const phase of phases) {
  const started = Date.now();
  const shared = phase.lanes.length > 1;
  await Promise.all(
    phase.lanes.map(async (lane) => {
      for (const step of lane) await runStep(step, shared);
    }),
  );
  timings.push(`phase "${phase.name}": ${seconds(started)} s`);
}

console.log(`\n${timings.join('\n')}`);
if (anyStepFailed && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(anyStepFailed ? 1 : 0);

/**
 * Runs one step: its output straight to this terminal, or, when it shares the machine with other
 * steps, kept and printed whole when it ends. Adds its counts to the totals.
 */
async function runStep(step, shared) {
  const report = step.report ?? `${tmp}/${slug(step.name)}.json`;
  rmSync(report, { force: true });
  console.log(`\n=== ${step.name}${shared ? ' (beside other steps: output when it ends)' : ''}`);
  const started = Date.now();
  step.before?.();
  const child = spawn(step.command, step.args, {
    cwd: root,
    stdio: shared ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...step.env, TEST_RESULT_FILE: report },
  });
  const output = [];
  if (shared) {
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
  }
  const status = await new Promise((resolve) => {
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
  if (shared) console.log(`\n=== output of ${step.name}\n${Buffer.concat(output).toString()}`);
  const counts = readCounts(report, status === 0);
  passed += counts.passed;
  failed += counts.failed;
  if (status !== 0) anyStepFailed = true;
  timings.push(`${step.name}: ${seconds(started)} s`);
  console.log(`=== ${step.name}: ${status === 0 ? 'ok' : `FAILED (exit ${status})`} in ${seconds(started)} s, ${counts.passed} passed, ${counts.failed} failed`);
}

function seconds(since) {
  return ((Date.now() - since) / 1000).toFixed(1);
}

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
