// API reports of the published packages (API Extractor): one Markdown file per entry point in
// <package>/api/, committed, so a change of the public API shows up as a diff in review.
//
//   node scripts/api-report.mjs            check: fails when an entry point's API differs from its
//                                          committed report (npm test runs this)
//   node scripts/api-report.mjs --update   rewrite the reports after an intended API change
//                                          (npm run api:update), then commit them
//
// Needs the packages built (the declarations their `exports` name). Every package under packages/ that is not private
// is covered, with every subpath of its `exports` (./package.json excepted): a new package or
// subpath gets its report without a change here.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const update = process.argv.includes('--update');

/** Every entry point of every published package: { packageDir, packageName, subpath, dts, source, reportName }. */
export function entryPoints() {
  const list = [];
  for (const name of readdirSync(`${root}packages`).sort()) {
    const packageDir = `${root}packages/${name}/`;
    if (!existsSync(`${packageDir}package.json`)) continue;
    const manifest = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8'));
    if (manifest.private || !manifest.exports) continue;
    for (const subpath of Object.keys(manifest.exports)) {
      if (subpath === './package.json') continue;
      const reportName = subpath === '.' ? name : `${name}-${subpath.slice(2).replaceAll('/', '-')}`;
      const target = manifest.exports[subpath];
      // The ESM declarations of the entry point (a dual package's `import` condition, an ESM-only one's `types`).
      const types = target.import?.types ?? target.types;
      const built = types.replace(/^\.\//, '');
      // The TypeScript source the declarations are built from: dist/[esm/]x/index.d.ts <- src/x/index.ts.
      const source = `${packageDir}${built.replace(/^dist\/(?:esm\/)?/, 'src/').replace(/\.d\.ts$/, '.ts')}`;
      list.push({ packageDir, packageName: manifest.name, subpath, dts: `${packageDir}${built}`, source, reportName });
    }
  }
  return list;
}

function run() {
  const changed = [];
  /** Names the root entry of each package exports: a subpath's API may use them without re-exporting them. */
  const rootExports = new Map();
  for (const { packageDir, packageName, subpath, dts, reportName } of entryPoints()) {
    if (!existsSync(dts)) throw new Error(`${dts} is missing: build first (npm run build)`);
    mkdirSync(`${packageDir}api`, { recursive: true });
    const config = ExtractorConfig.prepare({
      configObjectFullPath: `${packageDir}api-extractor.json`,
      packageJsonFullPath: `${packageDir}package.json`,
      configObject: {
        projectFolder: packageDir,
        mainEntryPointFilePath: dts,
        compiler: { tsconfigFilePath: `${packageDir}tsconfig.json` },
        apiReport: {
          enabled: true,
          reportFolder: `${packageDir}api/`,
          reportTempFolder: `${root}.tmp/api-report/`,
          reportFileName: reportName,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          extractorMessageReporting: {
            default: { logLevel: 'warning' },
            // A type the API uses but the entry point does not export: listed in the root entry's
            // report; a subpath's API may use what the root exports (anything else fails below).
            'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: subpath === '.' },
            'ae-missing-release-tag': { logLevel: 'none' },
            'ae-undocumented': { logLevel: 'none' },
          },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
    });
    const fromRoot = rootExports.get(packageDir) ?? new Set();
    const unexported = [];
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      messageCallback: (message) => {
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        const forgotten = message.messageId === 'ae-forgotten-export' && /symbol "([^"]+)"/.exec(message.text)?.[1];
        if (forgotten && subpath !== '.' && !fromRoot.has(forgotten)) unexported.push(forgotten);
      },
    });
    if (subpath === '.') rootExports.set(packageDir, exportedNames(`${root}.tmp/api-report/${reportName}.api.md`));
    const label = `${packageName}${subpath === '.' ? '' : subpath.slice(1)}`;
    if (result.apiReportChanged) changed.push({ label, report: `${packageDir}api/${reportName}.api.md`, temp: `${root}.tmp/api-report/${reportName}.api.md` });
    if (result.errorCount > 0) throw new Error(`API Extractor failed for ${label}: ${result.errorCount} errors`);
    if (unexported.length > 0) {
      throw new Error(`${label} uses types that neither it nor the package's root entry exports: ${[...new Set(unexported)].join(', ')}`);
    }
    console.log(`${label}: ${result.apiReportChanged ? (update ? 'report updated' : 'API CHANGED') : 'unchanged'}`);
  }
  if (changed.length > 0 && !update) {
    console.error(
      [
        'The public API differs from the committed API report of:',
        ...changed.map(({ label, report, temp }) => `  ${label}: compare ${report} with ${temp}`),
        'If the change is intended, run `npm run api:update` and commit the reports with the change.',
      ].join('\n'),
    );
    process.exitCode = 1;
  }
}

/** Names a report declares as exports (`export class X`, `export interface X`, ...). */
function exportedNames(reportFile) {
  const names = new Set();
  for (const match of readFileSync(reportFile, 'utf8').matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum) (\w+)/gm)) {
    names.add(match[1]);
  }
  return names;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) run();
