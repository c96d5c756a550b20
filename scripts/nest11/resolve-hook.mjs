// Node module resolve hook for the Nest 11 compatibility run: child processes that the e2e tests
// start (fixture apps) import `@nestjs/*` from this scratch install instead of the repo's Nest 12.
// Registered with `node --import <register.mjs>`; see register.mjs.
const nestPackages = new Set(['common', 'core', 'testing', 'terminus', 'config', 'platform-express']);
const scratch = new URL('./', import.meta.url);

/** Resolves bare `@nestjs/<package>` (and its subpaths) from the scratch folder. */
export async function resolve(specifier, context, nextResolve) {
  const match = /^@nestjs\/([^/]+)(\/.*)?$/.exec(specifier);
  if (match && nestPackages.has(match[1])) {
    return nextResolve(specifier, { ...context, parentURL: new URL('package.json', scratch).href });
  }
  return nextResolve(specifier, context);
}
