import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { TimeoutMetricsExporter } from './timeout-metrics.exporter.js';

/** `GET /metrics`: the Prometheus text format of the app's metrics (the durable-timeout ones). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: TimeoutMetricsExporter) {}

  /** Answered by the OpenTelemetry Prometheus exporter itself. */
  @Get()
  serve(@Req() request: IncomingMessage, @Res() response: ServerResponse): void {
    this.metrics.prometheus.getMetricsRequestHandler(request, response);
  }
}
