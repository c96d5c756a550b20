import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DurableTimeouts } from '@durable-timeout/core';
import { registerTimeoutMetrics, type TimeoutMetrics } from '@durable-timeout/core/otel';
import { DURABLE_TIMEOUTS } from '@durable-timeout/nestjs';

/**
 * The app's OpenTelemetry metrics, read by Prometheus: a meter provider of its own (two app instances
 * may run in one test process, so nothing global), whose Prometheus exporter serves `GET /metrics`
 * (`MetricsController`) instead of opening a port of its own.
 */
@Injectable()
export class TimeoutMetricsExporter implements OnModuleInit, OnApplicationShutdown {
  /** The exporter the `/metrics` route hands requests to. */
  readonly prometheus = new PrometheusExporter({ preventServerStart: true });
  private readonly provider = new MeterProvider({ readers: [this.prometheus] });
  private registration: TimeoutMetrics | undefined;

  constructor(@Inject(DURABLE_TIMEOUTS) private readonly timeouts: DurableTimeouts) {}

  onModuleInit(): void {
    this.registration = registerTimeoutMetrics(this.timeouts, { meterProvider: this.provider });
  }

  async onApplicationShutdown(): Promise<void> {
    this.registration?.stop();
    await this.provider.shutdown();
  }
}
