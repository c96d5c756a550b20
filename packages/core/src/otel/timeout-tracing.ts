import {
  context,
  isSpanContextValid,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type SpanContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { DurableTimeouts } from '../durable-timeouts.js';
import type { TimeoutEvent } from '../types.js';
import { MESSAGING_SYSTEM, TIMEOUT_METRIC_ATTRIBUTES as ATTR } from './metric-names.js';

/** Name of the tracer the spans are recorded under. */
export const TIMEOUT_TRACER_NAME = '@durable-timeout/core';

/** Attributes of a handler's span besides the messaging ones. */
export const TIMEOUT_SPAN_ATTRIBUTES = {
  attempt: 'durable_timeout.attempt',
  fencingToken: 'durable_timeout.fencing_token',
  dueAt: 'durable_timeout.due_at',
} as const;

/** Options of `registerTimeoutTracing`. */
export interface TimeoutTracingOptions {
  /** Where to record. Default: the global provider (the SDK registered, or the API's no-op one). */
  tracerProvider?: TracerProvider;
}

/** What `registerTimeoutTracing` returns. */
export interface TimeoutTracing {
  /** False when no SDK was registered (and no provider given): then nothing is intercepted and nothing costs. */
  readonly enabled: boolean;
  /** Stops tracing: later schedules keep no context and later handler runs get no span. Idempotent. */
  stop(): void;
}

/**
 * Traces timeouts through the OpenTelemetry API (an optional peer dependency). `schedule` keeps the
 * active span's context with the timeout (a W3C `traceparent`, 55 characters); the handler then
 * runs in a span `<topic> process` (kind consumer) linked to that span, active while it runs (so
 * the handler's own spans nest under it), with the attempt and the fencing token as attributes, an
 * error status when it throws. Retries, dead letters and replays keep the context, so every
 * delivery of a timeout links back to the request that scheduled it.
 *
 * ```ts
 * import { registerTimeoutTracing } from '@durable-timeout/core/otel';
 * registerTimeoutTracing(timeouts); // after the OpenTelemetry SDK is registered
 * ```
 *
 * With no SDK registered (and no `tracerProvider` given) it intercepts nothing (`enabled` is
 * false): register the SDK first.
 */
export function registerTimeoutTracing(timeouts: DurableTimeouts, options: TimeoutTracingOptions = {}): TimeoutTracing {
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  // The global provider is a proxy that hands out no-op tracers until an SDK registers a delegate.
  const noSdk = provider instanceof ProxyTracerProvider && provider.getDelegateTracer(TIMEOUT_TRACER_NAME) === undefined;
  if (noSdk) return { enabled: false, stop: () => undefined };
  const tracer = provider.getTracer(TIMEOUT_TRACER_NAME);
  const remove = timeouts.intercept({
    scheduling: () => traceparentOf(trace.getSpanContext(context.active())),
    handling: (event, carried, run) => runInSpan(tracer, event, carried, run),
  });
  let stopped = false;
  return {
    enabled: true,
    stop() {
      if (stopped) return;
      stopped = true;
      remove();
    },
  };
}

/** Runs one delivery in its span, ended when the handler returns, throws, or its promise settles. */
function runInSpan(tracer: Tracer, event: TimeoutEvent<unknown>, carried: string | undefined, run: () => unknown): unknown {
  const scheduledBy = spanContextOf(carried);
  const links: Link[] = scheduledBy ? [{ context: scheduledBy }] : [];
  const span = tracer.startSpan(
    `${event.topic} process`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        [ATTR.system]: MESSAGING_SYSTEM,
        [ATTR.topic]: event.topic,
        [ATTR.operation]: 'process',
        'messaging.message.id': event.id,
        [TIMEOUT_SPAN_ATTRIBUTES.attempt]: event.attempt,
        [TIMEOUT_SPAN_ATTRIBUTES.fencingToken]: event.fencingToken,
        [TIMEOUT_SPAN_ATTRIBUTES.dueAt]: event.dueAt,
      },
    },
    context.active(),
  );
  const fail = (error: unknown) => {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.end();
  };
  let outcome: unknown;
  try {
    outcome = context.with(trace.setSpan(context.active(), span), run);
  } catch (error) {
    fail(error);
    throw error;
  }
  if (outcome !== null && typeof outcome === 'object' && typeof (outcome as PromiseLike<unknown>).then === 'function') {
    (outcome as PromiseLike<unknown>).then(
      () => span.end(),
      (error: unknown) => fail(error),
    );
  } else {
    span.end();
  }
  return outcome;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of a span context, or undefined when there is none (no active span, no SDK). */
export function traceparentOf(spanContext: SpanContext | undefined): string | undefined {
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The span context a `traceparent` names, or undefined when the text is not one. */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
