// Runs the tests of @durable-timeout/nestjs (unit specs and e2e) against Nest 11, while the repo
// itself develops on Nest 12: installs Nest 11 into the scratch folder libs/tooling/nest11 (from its
// committed package-lock.json) when needed, then runs Jest with `@nestjs/*` mapped to that folder.
// Nest 11 is CommonJS: Jest's ESM mode links its named exports from module.exports. The fixture
// apps the e2e tests start as child processes get the same mapping through a resolve hook
// (`node --import $DURABLE_TIMEOUT_NEST_IMPORT`). Prints a summary and writes { passed, failed } to TEST_RESULT_FILE.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = fileURLToPath(new URL('./nest11/', import.meta.url));
const packages = ['common', 'core', 'testing', 'terminus', 'config', 'platform-express'];

installNest11();
const versions = Object.fromEntries(packages.map((name) => [`@nestjs/${name}`, installedVersion(name)]));
const wrong = Object.entries(versions).filter(([name, version]) => name !== '@nestjs/config' && !version.startsWith('11.'));
if (wrong.length > 0) fail(`expected Nest 11 in ${scratch}, found ${JSON.stringify(versions)}`);
console.log(`Nest 11 compatibility: ${Object.entries(versions).map(([n, v]) => `${n}@${v}`).join(', ')}`);

const rootJest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).jest;
const nestMapping = Object.fromEntries(
  packages.map((name) => [`^@nestjs/${name}$`, `${scratch}node_modules/@nestjs/${name}`]),
);
const config = {
  ...rootJest,
  rootDir: root,
  // Nest 11 mappings first: moduleNameMapper applies the first pattern that matches.
  moduleNameMapper: { ...nestMapping, ...rootJest.moduleNameMapper },
  testMatch: ['<rootDir>/packages/nestjs/{src,e2e}/**/*.{spec,e2e-spec}.ts'],
};
const tmp = `${root}.tmp`;
mkdirSync(tmp, { recursive: true });
const configFile = `${tmp}/jest.nest11.config.json`;
const report = `${tmp}/jest-nest11-report.json`;
writeFileSync(configFile, JSON.stringify(config, null, 2));
rmSync(report, { force: true });

const jest = spawnSync(
  'npx',
  ['jest', '--forceExit', '--config', configFile, '--json', `--outputFile=${report}`, ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim(),
      DURABLE_TIMEOUT_EXPECT_NEST: '11',
      DURABLE_TIMEOUT_NEST_IMPORT: pathToFileURL(`${scratch}register.mjs`).href,
    },
  },
);

let counts = { passed: 0, failed: 1 };
try {
  const data = JSON.parse(readFileSync(report, 'utf8'));
  counts = { passed: data.numPassedTests, failed: data.numFailedTests + (data.numRuntimeErrorTestSuites ?? 0) };
} catch {
  console.error('Nest 11 compatibility: Jest wrote no report');
}
if (jest.status !== 0 && counts.failed === 0) counts.failed = 1;
console.log(`Nest 11 compatibility: ${counts.passed} passed, ${counts.failed} failed`);
if (process.env.TEST_RESULT_FILE) writeFileSync(process.env.TEST_RESULT_FILE, JSON.stringify(counts));
process.exit(jest.status === 0 && counts.failed === 0 ? 0 : 1);

function installNest11() {
  const lock = `${scratch}package-lock.json`;
  if (packages.every((name) => existsSync(`${scratch}node_modules/@nestjs/${name}/package.json`))) return;
  console.log(`Installing Nest 11 into ${scratch}`);
  const result = spawnSync('npm', [existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: scratch,
    stdio: 'inherit',
  });
  if (result.status !== 0) fail('npm could not install Nest 11; check the network or the npm registry settings');
}

function installedVersion(name) {
  const require = createRequire(`${scratch}package.json`);
  return require(`@nestjs/${name}/package.json`).version;
}

function fail(message) {
  console.error(`Nest 11 compatibility: ${message}`);
  if (process.env.TEST_RESULT_FILE) writeFileSync(process.env.TEST_RESULT_FILE, JSON.stringify({ passed: 0, failed: 1 }));
  process.exit(1);
}
