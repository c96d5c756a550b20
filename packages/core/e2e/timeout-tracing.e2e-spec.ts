import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncHooksContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { RedisServer } from '@durable-timeout/redis-testing';
import { registerTimeoutTracing, spanContextOf, TIMEOUT_SPAN_ATTRIBUTES, traceparentOf } from '../src/otel/index.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { slotOf } from '../src/store/slot-of.js';
import { EngineRig, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

// Tracing with the OpenTelemetry SDK's in-memory exporter, against a real Redis: a handler's span
// links to the span that was active when the timeout was scheduled, across retries, dead letters
// and replays; the payload the handler and `get` see is the one scheduled.

let server: RedisServer;
const rig = new EngineRig();
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncHooksContextManager();
const tracer = provider.getTracer('test');

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  server = await RedisServer.start();
});

afterEach(async () => {
  await rig.stopAll();
  exporter.reset();
});

afterAll(async () => {
  context.disable();
  await provider.shutdown();
  await server?.stop();
});

const processSpans = (id: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((span) => span.name === 'payment process' && span.attributes['messaging.message.id'] === id);

describe('tracing timeouts', () => {
  it('runs each delivery in a span linked to the span that scheduled it, through retries, dead letters and a replay', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 2, maxAttempts: 2, backoff: { baseMs: 0 } } } });
    registerTimeoutTracing(timeouts, { tracerProvider: provider });
    let failing = true;
    const seen: unknown[] = [];
    timeouts.handle('payment', async (event) => {
      seen.push(event.payload);
      // The handler's own spans nest under the delivery's span.
      tracer.startSpan('charge the card').end();
      if (failing) throw new Error('card service down');
    });
    await timeouts.start();
    const request = tracer.startSpan('POST /orders');
    await context.with(trace.setSpan(context.active(), request), () => timeouts.schedule('payment', 'order-1', { delayMs: 0, payload: { amount: 42 } }));
    request.end();
    // Stored with the payload; `get` and the handler see only the payload.
    expect(await timeouts.get('payment', 'order-1')).toMatchObject({ payload: { amount: 42 } });
    await waitUntil(async () => (await timeouts.stats('payment')).dead === 1, 10_000, 'dead letter');
    failing = false;
    expect(await timeouts.replayDead('payment')).toBe(1);
    await waitUntil(() => processSpans('order-1').length === 3, 10_000, 'three deliveries');

    // In the order they ran: attempt 1 and 2 failed (then the dead letters), the replay's attempt 1 passed.
    const spans = processSpans('order-1').sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(spans.map((span) => span.attributes[TIMEOUT_SPAN_ATTRIBUTES.attempt])).toEqual([1, 2, 1]);
    expect(spans.map((span) => span.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
    expect(spans[0]!.events.map((event) => event.name)).toEqual(['exception']);
    for (const span of spans) {
      expect(span.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[request.spanContext().traceId, request.spanContext().spanId]]);
      expect(span.attributes).toMatchObject({ 'messaging.system': 'durable_timeout', 'messaging.destination.name': 'payment' });
      expect(Number(span.attributes[TIMEOUT_SPAN_ATTRIBUTES.fencingToken])).toBeGreaterThan(0);
      const child = exporter.getFinishedSpans().filter((inner) => inner.name === 'charge the card' && inner.parentSpanContext?.spanId === span.spanContext().spanId);
      expect(child).toHaveLength(1);
    }
    expect(seen).toEqual([{ amount: 42 }, { amount: 42 }, { amount: 42 }]);
  });

  it('keeps nothing when no span is active, and stops when told', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 1 } } });
    const tracing = registerTimeoutTracing(timeouts, { tracerProvider: provider });
    await timeouts.schedule('payment', 'untraced', { delayMs: 60_000, payload: 'p' });
    tracing.stop();
    tracing.stop();
    const request = tracer.startSpan('POST /after-stop');
    await context.with(trace.setSpan(context.active(), request), () => timeouts.schedule('payment', 'after-stop', { delayMs: 60_000, payload: 'q' }));
    request.end();
    const store = new RedisTimeoutStore({ connection: server.url, prefix });
    try {
      for (const id of ['untraced', 'after-stop']) {
        const stored = await store.reads.get({ topic: 'payment', slot: slotOf(id, 1) }, id);
        expect(stored!.payload.startsWith('"')).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('intercepts nothing when no SDK is registered and no provider is given', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 1 } } });
    expect(registerTimeoutTracing(timeouts).enabled).toBe(false);
    expect(registerTimeoutTracing(timeouts, { tracerProvider: provider }).enabled).toBe(true);
  });

  it('writes and reads W3C traceparent text', () => {
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    expect(traceparentOf(spanContext)).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(spanContextOf(traceparentOf(spanContext))).toMatchObject(spanContext);
    expect(spanContextOf('00-00000000000000000000000000000000-b7ad6b7169203331-01')).toBeUndefined();
    expect(spanContextOf('not a traceparent')).toBeUndefined();
    expect(traceparentOf(undefined)).toBeUndefined();
  });
});
