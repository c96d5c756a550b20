import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DurableTimeoutHealthIndicator } from './durable-timeout.health.js';

/**
 * Provides `DurableTimeoutHealthIndicator` (and Terminus). The indicator injects the engine of
 * `DurableTimeoutModule`, so register that one with `isGlobal: true`, or instead list
 * `DurableTimeoutHealthIndicator` among the providers of a module that imports both
 * `TerminusModule` and your `DurableTimeoutModule`.
 */
@Module({
  imports: [TerminusModule],
  providers: [DurableTimeoutHealthIndicator],
  exports: [DurableTimeoutHealthIndicator, TerminusModule],
})
export class DurableTimeoutHealthModule {}
