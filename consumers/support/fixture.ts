import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { repoRoot, type Tarballs } from './packs.js';
import { runOrFail } from './commands.js';

const npmFlags = ['--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'];

/**
 * One consumer project under consumers/: its registry dependencies come from its committed
 * package-lock.json (a clean install, redone only when the lockfile changed: node_modules is the
 * cache), then the packed tarballs are installed on top with `npm install --no-save`, as a user
 * installs a published version (no workspace links). Both steps are skipped when nothing changed.
 * The clean install is `npm install --no-save` on an empty node_modules rather than `npm ci`: npm
 * leaves the optional packages of other platforms out of a lockfile, and `npm ci` then refuses it;
 * `npm install` keeps every locked version and adds those.
 */
export class ConsumerFixture {
  readonly dir: string;

  constructor(readonly name: string) {
    this.dir = `${repoRoot}consumers/${name}/`;
  }

  /** The fixture's package.json. */
  get manifest(): { scripts: Record<string, string>; type?: string } {
    return JSON.parse(readFileSync(`${this.dir}package.json`, 'utf8')) as { scripts: Record<string, string>; type?: string };
  }

  /** Installs the registry dependencies (when the lockfile changed) and `tarballs` (when they changed). */
  async install(tarballs: Partial<Tarballs>): Promise<void> {
    const lockMarker = `${this.dir}node_modules/.consumer-lockfile.sha256`;
    const lockHash = sha256(readFileSync(`${this.dir}package-lock.json`));
    if (!existsSync(lockMarker) || readFileSync(lockMarker, 'utf8') !== lockHash) {
      rmSync(`${this.dir}node_modules`, { recursive: true, force: true });
      await runOrFail('npm', ['install', '--no-save', ...npmFlags], this.dir);
      writeFileSync(lockMarker, lockHash);
    }
    const files = Object.values(tarballs);
    const packMarker = `${this.dir}node_modules/.consumer-tarballs.sha256`;
    const packHash = sha256(Buffer.concat(files.map((file) => readFileSync(file))));
    if (!existsSync(packMarker) || readFileSync(packMarker, 'utf8') !== packHash) {
      await runOrFail('npm', ['install', '--no-save', ...npmFlags, ...files], this.dir);
      writeFileSync(packMarker, packHash);
    }
  }

  /**
   * Gives the project its sources: the one Nest application of consumers/nest-app/src (written as
   * `nest new` writes CommonJS code), copied into the project's src/. For an ESM project, each
   * relative import gets the `.js` extension Node's ESM resolution requires; nothing else changes.
   */
  copyNestApp(format: 'commonjs' | 'esm'): void {
    const target = `${this.dir}src/`;
    rmSync(target, { recursive: true, force: true });
    cpSync(`${repoRoot}consumers/nest-app/src/`, target, { recursive: true });
    if (format === 'commonjs') return;
    for (const file of readdirSync(target).filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(`${target}${file}`, 'utf8');
      writeFileSync(`${target}${file}`, source.replace(/(from '\.{1,2}\/[^']+?)(?<!\.js)'/g, "$1.js'"));
    }
  }

  /** Compiles the project from scratch with its `build` script (no output or incremental state of an earlier run). */
  async build(): Promise<void> {
    rmSync(`${this.dir}dist`, { recursive: true, force: true });
    for (const file of readdirSync(this.dir).filter((name) => name.endsWith('.tsbuildinfo'))) rmSync(`${this.dir}${file}`);
    await this.npmRun('build');
  }

  /** Runs `npm run <script>` in the fixture and returns its output; fails on a non-zero exit. */
  npmRun(script: string, env: Record<string, string> = {}): Promise<string> {
    return runOrFail('npm', ['run', script, '--silent'], this.dir, env);
  }
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
