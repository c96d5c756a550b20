import { Controller, Get, Optional } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { DurableTimeoutHealthIndicator } from '@durable-timeout/nestjs/terminus';
import { RedisHealthIndicator } from '../redis/redis.health.js';

/** `GET /health`: 200 `{ status: 'ok', ... }` when every check is up, 503 with the details otherwise. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: RedisHealthIndicator,
    // Absent in legacy mode, which runs without the durable-timeout module.
    @Optional() private readonly timeouts?: DurableTimeoutHealthIndicator,
  ) {}

  /** Checks the app's Redis connection and, in durable mode, the timeout pollers. */
  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    const timeouts = this.timeouts;
    return this.health.check([
      () => this.redis.isHealthy('redis'),
      ...(timeouts ? [() => timeouts.isHealthy('durable-timeout')] : []),
    ]);
  }
}
