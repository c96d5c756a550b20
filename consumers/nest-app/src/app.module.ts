import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { DurableTimeoutExceptionFilter, DurableTimeoutModule } from '@durable-timeout/nestjs';
import { DurableTimeoutHealthIndicator, DurableTimeoutHealthModule } from '@durable-timeout/nestjs/terminus';
import { OrdersModule } from './orders';
import { PaymentsModule } from './payments';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly timeouts: DurableTimeoutHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.timeouts.isHealthy('timeouts')]);
  }
}

@Module({
  imports: [
    DurableTimeoutModule.forRoot({
      connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      prefix: process.env.TIMEOUT_PREFIX ?? 'dt',
      isGlobal: true, // the topics come from the feature modules (OrdersModule: payment)
    }),
    DurableTimeoutHealthModule,
    OrdersModule,
    PaymentsModule,
  ],
  controllers: [HealthController],
  providers: [{ provide: APP_FILTER, useClass: DurableTimeoutExceptionFilter }],
})
export class AppModule {}
