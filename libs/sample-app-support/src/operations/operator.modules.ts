import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { DurableTimeoutAdminModule } from '@durable-timeout/nestjs/admin';
import { MetricsController } from './metrics.controller.js';
import { TimeoutMetricsExporter } from './timeout-metrics.exporter.js';

/** `GET /metrics` with the durable-timeout metrics (needs `DurableTimeoutModule` registered with `isGlobal: true`). */
@Module({ controllers: [MetricsController], providers: [TimeoutMetricsExporter] })
export class TimeoutMetricsModule {}

/**
 * What an operator gets in durable mode: `GET /metrics` always, and the admin page at `/timeouts`
 * when `ADMIN_TOKEN` is set (it refuses to mount without a token or a guard).
 */
export function operatorModules(config: { ADMIN_TOKEN?: string | undefined }): (Type | DynamicModule)[] {
  return [TimeoutMetricsModule, ...(config.ADMIN_TOKEN === undefined ? [] : [DurableTimeoutAdminModule.forRoot({ token: config.ADMIN_TOKEN })])];
}
