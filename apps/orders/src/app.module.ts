import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { DurableTimeoutModule } from '@durable-timeout/nestjs';
import { SampleAppModule } from '@durable-timeout/sample-app-support';
import { loadOrdersConfig, type OrdersConfig } from './config/orders.config.js';
import { PAYMENT_TOPIC } from './orders/deadlines/durable-payment-deadlines.js';
import { OrdersModule } from './orders/orders.module.js';

/** Attempts of a payment timeout before it is dead-lettered: only Redis errors make it retry. */
const PAYMENT_MAX_ATTEMPTS = 10;

/** The orders app. Build it with `AppModule.register(config)`; `main.ts` passes the environment's config. */
@Module({})
export class AppModule {
  /**
   * Assembles the app for a configuration (default: read from `process.env`): the frame every
   * sample app shares (config, Redis, health, errors), the durable-timeout module in durable mode,
   * and the orders feature.
   */
  static register(config: OrdersConfig = loadOrdersConfig()): DynamicModule {
    const durable = config.TIMEOUT_MODE === 'durable';
    return {
      module: AppModule,
      imports: [
        SampleAppModule.forRoot({ name: 'orders', config, durableTimeouts: durable }),
        ...(durable
          ? [
              DurableTimeoutModule.forRootAsync({
                // Global, so the orders feature module can inject TimeoutScheduler.
                isGlobal: true,
                imports: [ConfigModule],
                inject: [ConfigService],
                useFactory: (settings: ConfigService<OrdersConfig, true>) => ({
                  connection: settings.get('REDIS_URL', { infer: true }),
                  prefix: settings.get('DT_PREFIX', { infer: true }),
                  topics: {
                    [PAYMENT_TOPIC]: {
                      leaseMs: settings.get('TIMEOUT_LEASE_MS', { infer: true }),
                      maxAttempts: PAYMENT_MAX_ATTEMPTS,
                    },
                  },
                  drainMs: settings.get('DRAIN_MS', { infer: true }),
                }),
              }),
            ]
          : []),
        OrdersModule.register(config.TIMEOUT_MODE),
      ],
    };
  }
}
