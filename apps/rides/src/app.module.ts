import { Module, type DynamicModule } from '@nestjs/common';
import { DurableTimeoutModule } from '@durable-timeout/nestjs';
import { SampleAppModule } from '@durable-timeout/sample-app-support';
import { loadRidesConfig, type RidesConfig } from './config/rides.config.js';
import { OpsModule } from './ops/ops.module.js';
import { RidesTimeoutOptions } from './trips/deadlines/rides-timeout.options.js';
import { TripsModule } from './trips/trips.module.js';

/** The rides app. Build it with `AppModule.register(config)`; `main.ts` passes the environment's config. */
@Module({})
export class AppModule {
  /**
   * Assembles the app for a configuration (default: read from `process.env`): the frame every
   * sample app shares (config, Redis, health, errors), the durable-timeout module with the two
   * rides topics, the trips feature and the operator endpoints.
   */
  static register(config: RidesConfig = loadRidesConfig()): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SampleAppModule.forRoot({ name: 'rides', config, durableTimeouts: true }),
        // Global, so the trips and ops modules inject TimeoutScheduler. The options come from a
        // class that reads ConfigService (see RidesTimeoutOptions).
        DurableTimeoutModule.forRootAsync({ isGlobal: true, useClass: RidesTimeoutOptions }),
        TripsModule,
        OpsModule,
      ],
    };
  }
}
