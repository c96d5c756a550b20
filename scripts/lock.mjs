// The repository's package-lock.json files (the root's, with every workspace, and the separate
// projects of scripts/ and consumers/), kept complete for every platform and in sync with their
// package.json, so that `npm ci` works on any machine and `npm install` leaves them unchanged.
//
//   npm run lock                    regenerates every lock file from its package.json (keeps the
//                                   locked versions), then checks them as below
//   node scripts/lock.mjs --check   (npm test) checks each lock file in a clean copy of its
//                                   project: `npm ci --dry-run` accepts it, `npm install` would
//                                   not change it; and, when no package.json differs from the
//                                   last commit, that no lock file does either
//
// Why a script: a lock file must record the optional packages of every platform (the native
// binaries of @swc/core and others, one package per OS and CPU), or `npm ci` refuses it on
// npm >= 11.6.2 and the binary is missing on the platforms left out. npm before 11.6.2 records
// only the current platform's when it writes the lock over an existing node_modules
// (npm/cli issues 4828, 7961), and deleting the lock and running `npm install` over node_modules also
// drops its integrity hashes. `npm install --package-lock-only` works from the lock and the
// registry alone, never from node_modules, and npm >= 11.6.2 resolves every platform's packages.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The first npm that records every platform's optional packages and checks them in `npm ci`. */
export const MIN_NPM = [11, 6, 2];

/**
 * Flags of every npm command here. No `resolved` registry URLs in the lock files (as the root
 * .npmrc sets for the root project), so they install from whichever registry a machine uses.
 */
const npmFlags = ['--ignore-scripts', '--no-audit', '--no-fund', '--omit-lockfile-registry-resolved'];

/** Folders (relative to the repository, '' for the root) that hold a package-lock.json. */
export function lockDirs() {
  const dirs = [];
  const walk = (dir) => {
    if (existsSync(join(root, dir, 'package-lock.json'))) dirs.push(dir);
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && !['node_modules', 'dist'].includes(entry.name)) walk(join(dir, entry.name));
    }
  };
  walk('');
  return dirs;
}

/** The package.json files an install in `dir` reads: its own and, for a workspace root, each workspace's. */
function manifests(dir) {
  const own = join(dir, 'package.json');
  const patterns = JSON.parse(readFileSync(join(root, own), 'utf8')).workspaces ?? [];
  const workspaces = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(dir, pattern)];
    const parent = join(dir, pattern.slice(0, -2));
    if (!existsSync(join(root, parent))) return [];
    return readdirSync(join(root, parent), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(parent, entry.name));
  });
  return [own, ...workspaces.map((workspace) => join(workspace, 'package.json')).filter((file) => existsSync(join(root, file)))];
}

function npmVersionProblem() {
  const version = spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout?.trim().split('.').map(Number);
  return version?.length === 3 && compare(version, MIN_NPM) < 0
    ? `npm ${version.join('.')} is older than ${MIN_NPM.join('.')}, which records every platform's optional packages in a lock file; ` +
        'update npm (npm install -g npm@11) or run it through npx (npx npm@11 run lock)'
    : undefined;
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Runs npm in `cwd`; resolves to its exit code and output. */
function npm(args, cwd) {
  return new Promise((resolve) => {
    const child = spawn('npm', [...args, ...npmFlags], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** What is wrong with the lock file of `dir` in a clean copy of its project (no node_modules); [] when nothing. */
async function checkInCleanCopy(dir) {
  const copy = mkdtempSync(join(tmpdir(), 'lock-check-'));
  try {
    for (const file of [...manifests(dir), join(dir, 'package-lock.json')]) {
      const target = join(copy, relative(dir, file));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(root, file), target);
    }
    const problems = [];
    const ci = await npm(['ci', '--dry-run'], copy);
    if (ci.code !== 0) {
      const lines = ci.output.split('\n').filter((line) => /^npm error \S/.test(line) && !/complete log/.test(line));
      const reasons = lines.some((line) => /Missing:|Invalid:/.test(line)) ? lines.filter((line) => /Missing:|Invalid:/.test(line)) : lines;
      problems.push(`npm ci --dry-run refuses it:\n    ${reasons.slice(0, 12).join('\n    ')}${reasons.length > 12 ? `\n    ... ${reasons.length - 12} more` : ''}`);
    }
    const before = readFileSync(join(root, dir, 'package-lock.json'), 'utf8');
    const install = await npm(['install', '--package-lock-only', '--prefer-offline'], copy);
    if (install.code !== 0) problems.push(`npm install --package-lock-only failed:\n${install.output}`);
    else {
      const after = readFileSync(join(copy, 'package-lock.json'), 'utf8');
      if (after !== before) problems.push(`npm install would rewrite it: ${describeChange(JSON.parse(before), JSON.parse(after))}`);
    }
    return problems;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The entries a rewrite adds, removes and changes, for the message. */
function describeChange(before, after) {
  const was = before.packages ?? {};
  const now = after.packages ?? {};
  const added = Object.keys(now).filter((key) => !(key in was));
  const removed = Object.keys(was).filter((key) => !(key in now));
  const changed = Object.keys(now).filter((key) => key in was && JSON.stringify(now[key]) !== JSON.stringify(was[key]));
  const list = (label, keys) => (keys.length ? `${keys.length} ${label} (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''})` : []);
  return [list('added', added), list('removed', removed), list('changed', changed)].flat().join('; ') || 'formatting only';
}

/** Lock files that differ from the last commit although no package.json does (npm install rewrote them). */
async function rewrittenSinceCommit(dirs) {
  const git = await run('git', ['rev-parse', '--is-inside-work-tree']);
  if (git.code !== 0) return [];
  const locks = dirs.map((dir) => join(dir, 'package-lock.json'));
  const manifestsChanged = await run('git', ['diff', '--quiet', 'HEAD', '--', ...dirs.flatMap(manifests)]);
  if (manifestsChanged.code !== 0) return [];
  const changed = await run('git', ['diff', '--name-only', 'HEAD', '--', ...locks]);
  return changed.output.split('\n').filter(Boolean);
}

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Checks every lock file; prints what is wrong; resolves to the counts of passed and failed checks. */
export async function checkLocks() {
  const dirs = lockDirs();
  const results = await Promise.all(dirs.map(async (dir) => ({ dir, problems: await checkInCleanCopy(dir) })));
  const rewritten = await rewrittenSinceCommit(dirs);
  let failed = 0;
  for (const { dir, problems } of results) {
    const lock = join(dir, 'package-lock.json');
    if (problems.length === 0) console.log(`ok  ${lock}`);
    for (const problem of problems) console.log(`FAIL ${lock}: ${problem}`);
    failed += problems.length;
  }
  for (const lock of rewritten) {
    console.log(
      `FAIL ${lock} differs from the last commit, but no package.json does: if npm install rewrote it, the committed lock file is ` +
        'not in sync (a fresh clone gets the same rewrite); if you changed it on purpose (npm update), commit it',
    );
  }
  if (rewritten.length > 0) failed += 1;
  if (failed > 0) console.log(`\nRegenerate the lock files with \`npm run lock\` (npm >= ${MIN_NPM.join('.')}) and commit them. ${npmVersionProblem() ?? ''}`);
  // Two checks a lock file (npm ci, npm install) and one for the commit.
  return { passed: dirs.length * 2 + 1 - failed, failed };
}

/** Regenerates every lock file in place from its package.json, keeping the locked versions. */
async function regenerate() {
  const problem = npmVersionProblem();
  if (problem) throw new Error(problem);
  for (const dir of lockDirs()) {
    const result = await npm(['install', '--package-lock-only'], join(root, dir));
    if (result.code !== 0) throw new Error(`npm install --package-lock-only failed in ${dir || '.'}:\n${result.output}`);
    console.log(`regenerated ${join(dir, 'package-lock.json')}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (!process.argv.includes('--check')) await regenerate();
    const counts = await checkLocks();
    if (process.env.TEST_RESULT_FILE) writeFileSync(process.env.TEST_RESULT_FILE, JSON.stringify(counts));
    process.exit(counts.failed > 0 ? 1 : 0);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
