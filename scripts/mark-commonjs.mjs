// `postbuild` of each published package: marks its CommonJS build (dist/cjs) as CommonJS with a
// package.json of its own, since the package itself is `"type": "module"`. Node, TypeScript and
// bundlers read the nearest package.json to tell the format of a .js / .d.ts file.
// Usage: node ../../scripts/mark-commonjs.mjs [dir]   (default dist/cjs, relative to the package)
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? 'dist/cjs');
mkdirSync(dir, { recursive: true });
writeFileSync(resolve(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
