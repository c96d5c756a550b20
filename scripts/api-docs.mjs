// The API reference (`npm run docs`): a static HTML site of the published packages' public API,
// built by TypeDoc from the TypeScript sources and their JSDoc into api-docs/ (git-ignored). It
// works from the file system: open api-docs/index.html. No build of the packages is needed.
//
// The entry points are those of the API reports (scripts/api-report.mjs): every subpath of every
// published package's `exports`, so a new package or subpath appears without a change here. Each
// is named as users import it (`@durable-timeout/core/testing`). The packages' imports of each
// other resolve to their sources, so a class the Nest package re-exports from the core is
// documented once, under the core, and linked from the Nest package.
//
// The build fails on a TypeDoc warning: an export without JSDoc, a broken {@link}, a type the
// public API uses but no entry point exports.
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, Converter, ReflectionKind } from 'typedoc';
import { entryPoints } from './api-report.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Where the site is written (git-ignored). */
export const siteDir = `${root}api-docs/`;

/** Builds the site into `out`; resolves to the number of pages written, throws on any warning. */
export async function buildApiDocs(out = siteDir) {
  const entries = entryPoints().map((entry) => ({
    source: entry.source,
    name: `${entry.packageName}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`,
    packageName: entry.packageName,
    packageDir: entry.packageDir,
  }));
  const tsconfig = writeTsconfig(entries);
  const app = await Application.bootstrapWithPlugins({
    name: 'durable-timeout API reference',
    entryPoints: entries.map((entry) => entry.source),
    entryPointStrategy: 'resolve',
    tsconfig,
    out,
    readme: 'none',
    excludePrivate: true,
    excludeInternal: true,
    excludeNotDocumented: false,
    sort: ['kind', 'alphabetical'],
    // The summary page lists classes and interfaces only, yet a class built on a value (Nest's
    // ConfigurableModuleClass) links to it with an anchor it does not have.
    includeHierarchySummary: false,
    validation: { notExported: true, invalidLink: true, notDocumented: true },
    // Every export and every method needs JSDoc (the project's rule); a property may go without
    // when its name and type say it all. TypeDoc checks the root package.json's name by default.
    requiredToBeDocumented: ['Class', 'Interface', 'TypeAlias', 'Function', 'Variable', 'Enum', 'Namespace', 'Method', 'Accessor'],
    packagesRequiringDocumentation: [...new Set(entries.map((entry) => entry.packageName))],
    // The type parameter of the method decorator `OnTimeout` returns: TypeDoc reaches it through
    // its function-type constraint and reads no comment for it, not even a `@typeParam` tag.
    intentionallyNotDocumented: ['@durable-timeout/nestjs.OnTimeout.__type.M'],
    // Source links go to the public repository whatever this checkout's remote is (a fresh clone's
    // origin is a local path, which TypeDoc refuses with a warning).
    disableGit: true,
    sourceLinkTemplate: 'https://github.com/durable-timeout/durable-timeout/blob/main/{path}#L{line}',
    treatWarningsAsErrors: true,
    logLevel: 'Warn',
  });
  // Each entry point is named as it is imported (TypeDoc would name it by its folder).
  const nameOf = new Map(entries.map((entry) => [entry.source, entry.name]));
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
    const name = file && nameOf.get(file);
    if (name) reflection.name = name;
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the packages (see the messages above)');
  app.validate(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) throw new Error('TypeDoc reported problems (see above); fix the JSDoc they name');
  await app.generateDocs(project, out);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) throw new Error('TypeDoc reported problems while writing the site (see above)');
  return out;
}

/**
 * A tsconfig for TypeDoc alone: the packages' sources (no specs), with each package's own name
 * mapped to its sources rather than to its build.
 */
function writeTsconfig(entries) {
  const dir = `${root}.tmp/api-docs/`;
  mkdirSync(dir, { recursive: true });
  const packages = [...new Map(entries.map((entry) => [entry.packageName, entry.packageDir])).entries()];
  const paths = {};
  for (const [name, packageDir] of packages) {
    const src = relative(dir, `${packageDir}src`);
    paths[name] = [`${src}/index.ts`];
    paths[`${name}/*`] = [`${src}/*/index.ts`];
  }
  const config = {
    extends: relative(dir, `${root}tsconfig.base.json`),
    compilerOptions: { composite: false, noEmit: true, paths },
    include: packages.map(([, packageDir]) => `${relative(dir, packageDir)}/src`),
    exclude: ['spec.ts', 'e2e-spec.ts', 'fixture.ts'].map((suffix) => `${relative(dir, root)}/packages/**/*.${suffix}`),
  };
  writeFileSync(`${dir}tsconfig.json`, `${JSON.stringify(config, null, 2)}\n`);
  return `${dir}tsconfig.json`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    await buildApiDocs();
    console.log(`API reference written in ${((Date.now() - started) / 1000).toFixed(1)} s: open ${relative(process.cwd(), siteDir)}/index.html`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
