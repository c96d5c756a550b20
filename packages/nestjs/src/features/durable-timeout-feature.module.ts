import { Module } from '@nestjs/common';

/**
 * The module `DurableTimeoutModule.forFeature(...)` returns: it only carries its topics (under
 * `DURABLE_TIMEOUT_FEATURE`), which the root module's engine collects at bootstrap.
 */
@Module({})
export class DurableTimeoutFeatureModule {}
