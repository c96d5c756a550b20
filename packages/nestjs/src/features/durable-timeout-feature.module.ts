import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { DurableTimeouts } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS } from '../durable-timeout.constants.js';
import { UnregisteredFeatureTopicsError } from '../errors/unregistered-feature-topics.error.js';
import { DURABLE_TIMEOUT_FEATURE, type FeatureTopics } from './feature-topics.js';

/**
 * Checks that the engine took the feature's topics. It did unless the application has no engine
 * (checked at `onModuleInit`) or the module was loaded after the engine was created: a lazily
 * loaded module, whose lifecycle hooks Nest does not call, so that case is checked when the check
 * is created (the engine then exists already).
 */
@Injectable()
export class FeatureTopicsCheck implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(DURABLE_TIMEOUT_FEATURE) private readonly feature: FeatureTopics,
  ) {
    const engine = this.engine();
    if (engine !== undefined) this.assertTaken(engine);
  }

  onModuleInit(): void {
    const engine = this.engine();
    if (engine === undefined) throw new UnregisteredFeatureTopicsError(Object.keys(this.feature.topics), 'no-engine');
    this.assertTaken(engine);
  }

  /** The application's engine once it is created, else undefined. */
  private engine(): DurableTimeouts | undefined {
    try {
      const engine: unknown = this.moduleRef.get(DURABLE_TIMEOUTS, { strict: false });
      return engine instanceof Object && 'settings' in engine ? (engine as DurableTimeouts) : undefined;
    } catch {
      return undefined;
    }
  }

  private assertTaken(engine: DurableTimeouts): void {
    const known = engine.settings.topics;
    const missing = Object.keys(this.feature.topics).filter((topic) => !Object.hasOwn(known, topic));
    if (missing.length > 0) throw new UnregisteredFeatureTopicsError(missing, 'loaded-late');
  }
}

/**
 * The module `DurableTimeoutModule.forFeature(...)` returns: it carries its topics (under
 * `DURABLE_TIMEOUT_FEATURE`), which the root module's engine collects at bootstrap, and checks that
 * they were collected (`UnregisteredFeatureTopicsError` otherwise).
 */
@Module({ providers: [FeatureTopicsCheck] })
export class DurableTimeoutFeatureModule {}
