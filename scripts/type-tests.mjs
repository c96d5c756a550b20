// Type-level tests of the public API: `tsc -p` on each program below (nothing is emitted). A
// program passes when it compiles: every `expectTypeOf` holds and every `@ts-expect-error` line
// is an error; the scripts checked call what the packages publish. Needs the packages built (their published types are what is checked).
// Writes `{ passed, failed }` (one per program) to TEST_RESULT_FILE for scripts/run-tests.mjs.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const programs = [
  'packages/core/type-tests',
  'packages/nestjs/type-tests',
  // The DurableTimeoutTopics augmentation changes the defaults of its whole program.
  'packages/nestjs/type-tests/registry',
  // The same checks under the settings of a `nest new` project on TypeScript 5 (no strictFunctionTypes).
  'packages/nestjs/type-tests/loose',
  // The measuring scripts the docs name (plain ES modules no build compiles), against the published types.
  'scripts/checked',
];

let passed = 0;
let failed = 0;
for (const program of programs) {
  const result = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}${program}`], { cwd: root, stdio: 'inherit' });
  const ok = result.status === 0;
  console.log(`${ok ? 'ok' : 'FAILED'}: tsc -p ${program}`);
  if (ok) passed += 1;
  else failed += 1;
}
if (process.env.TEST_RESULT_FILE) writeFileSync(process.env.TEST_RESULT_FILE, JSON.stringify({ passed, failed }));
process.exit(failed === 0 ? 0 : 1);
