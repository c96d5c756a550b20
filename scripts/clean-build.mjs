// `prepack` of each published package: deletes dist and builds again, so a tarball holds exactly
// what the current sources compile to (no file left over from a renamed or deleted source).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
