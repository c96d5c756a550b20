// Setup file of the `nest11` Jest project. The e2e specs start fixture apps as child processes:
// DURABLE_TIMEOUT_NEST_IMPORT makes them resolve `@nestjs/*` from the Nest 11 install too
// (`node --import <register.mjs>`), and DURABLE_TIMEOUT_EXPECT_NEST lets a guard spec check that
// the mapping took effect (packages/nestjs/e2e/nest-version.e2e-spec.ts).
process.env.DURABLE_TIMEOUT_EXPECT_NEST = '11';
process.env.DURABLE_TIMEOUT_NEST_IMPORT = new URL('./register.mjs', import.meta.url).href;
