// Structure rules checked by `npm test` (scripts/run-tests.mjs): `npx depcruise packages`.
// The layers of packages/core/src, top to bottom (docs/ARCHITECTURE.md):
//   durable-timeouts.ts, index.ts    the public class: composes the engine and the store it opens
//   engine/                          scheduling, reads, workers, pollers, deliveries
//   store/, testing/memory-*         the storage port and its Redis and memory implementations
//                                    (testing/ also holds the test helper, which composes the engine)
//   validation/, errors/, support/   checks of caller input, defaults, typed errors, small helpers
// `types.ts` holds the public types every layer may name.
const CORE = '^packages/core/src/';
// A spec may reach across layers to build what it tests (e.g. an engine spec throws a Redis error).
const SPEC = '\\.spec\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: let one side return what happened and its owner act on it, or hand it only the object it uses.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-not-redis',
      comment:
        'The engine works with the storage port (store/timeout-store.ts and the roles it names), never with Redis internals: ' +
        'what it needs of Redis belongs behind the port, and the public class (durable-timeouts.ts) opens the Redis store.',
      severity: 'error',
      from: { path: `${CORE}engine/`, pathNot: SPEC },
      to: { path: `${CORE}store/redis-` },
    },
    {
      name: 'store-not-engine',
      comment: 'A store serves the engine and knows nothing of it: pass what it needs as values, or move the shared piece down to validation/ or support/.',
      severity: 'error',
      from: { path: `${CORE}(store/|testing/memory-)`, pathNot: SPEC },
      to: { path: `${CORE}(engine/|durable-timeouts\\.ts$)` },
    },
    {
      name: 'validation-at-the-bottom',
      comment:
        'Validation and defaults are the bottom layer, in one place (validation/): they may use errors/, support/ and the public types, ' +
        'nothing above them. A store check that callers share goes here, and the store calls it.',
      severity: 'error',
      // errors/index.ts only gathers every error class (the store's too) for the public entry.
      from: { path: `${CORE}(validation|errors|support)/`, pathNot: [SPEC, `${CORE}errors/index\\.ts$`] },
      to: { path: `${CORE}(engine|store|testing|otel|commands)/|${CORE}(durable-timeouts|index|typed-topics|typed-schedule)\\.ts$` },
    },
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '(/dist/|\\.generated\\.ts$)' },
    tsConfig: { fileName: 'tsconfig.base.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
