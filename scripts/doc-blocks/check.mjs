// `node scripts/doc-blocks/check.mjs`: compiles every TypeScript block of the documentation against
// the built packages (run `npm run build` first) and prints what fails. The same check runs in
// `npm test` (scripts/test/doc-blocks.e2e-spec.ts).
import { fileURLToPath } from 'node:url';
import { compileDocBlocks, verdictOf } from './compile.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const started = Date.now();
const { results, global } = compileDocBlocks(root);
const problems = [...global, ...results.map(verdictOf).filter(Boolean)];
const failing = results.filter((result) => result.block.fails !== undefined).length;
console.log(`${results.length} doc blocks compiled (${failing} that must fail) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
for (const problem of problems) console.log(`\n${problem}`);
process.exit(problems.length === 0 ? 0 : 1);
