// Jest projects of the repository (every workspace is found by the globs, none is listed):
//   unit    `*.spec.ts` beside the code in packages/*, libs/*, apps/*, tools/* (src/ and scripts/), and
//           scripts/test: pure logic, no Redis, no build (`npm run test:unit`).
//   e2e     `*.e2e-spec.ts` under each workspace's e2e/ (and test/): real Redis servers the specs
//           start themselves; some start built code as child processes (`npm run build` first).
//   packages  the published packages as users get them: `npm pack` tarballs installed into the
//           consumer projects (consumers/), and the checks of the tarballs (publint, attw, API
//           report, npm publish --dry-run) in scripts/test. Needs a build.
//   nest11  the Nest package's specs again, with `@nestjs/*` mapped to a Nest 11 install
//           (scripts/nest11, installed on first use by its global setup).
// Every project runs in Jest's ESM mode (NODE_OPTIONS=--experimental-vm-modules) with @swc/jest.
import { nest11ModuleMapper } from './scripts/nest11/mapping.mjs';

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'es6' },
  },
];

/** Workspace packages resolve to their sources, so no spec needs a build of what it imports. */
const sourceMapper = {
  // The engine's Lua scripts, read from disk when a spec loads them (the build embeds them instead).
  '^\\./lua-files\\.generated\\.js$': '<rootDir>/packages/core/scripts/lua-files.jest.mjs',
  '^@durable-timeout/(core|nestjs)$': '<rootDir>/packages/$1/src/index.ts',
  '^@durable-timeout/(core|nestjs)/(.*)$': '<rootDir>/packages/$1/src/$2/index.ts',
  '^@durable-timeout/(redis-testing|sample-app-support|store-model)$': '<rootDir>/libs/$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

const common = {
  rootDir: import.meta.dirname,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: sourceMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 30_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{packages,libs,apps,tools}/*/{src,scripts}/**/*.spec.ts', '<rootDir>/scripts/test/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{packages,libs,apps,tools}/*/{e2e,test}/**/*.e2e-spec.ts'],
    },
    {
      ...common,
      displayName: 'packages',
      testMatch: ['<rootDir>/consumers/**/*.e2e-spec.ts', '<rootDir>/scripts/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, '<rootDir>/consumers/[^/]+/'],
    },
    {
      ...common,
      displayName: 'nest11',
      testMatch: ['<rootDir>/packages/nestjs/{src,e2e}/**/*.{spec,e2e-spec}.ts'],
      // Nest 11 first: moduleNameMapper applies the first pattern that matches.
      moduleNameMapper: { ...nest11ModuleMapper, ...sourceMapper },
      globalSetup: '<rootDir>/scripts/nest11/install.mjs',
      setupFiles: ['<rootDir>/scripts/nest11/jest.setup.mjs'],
    },
  ],
};
