import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { Redis } from 'ioredis';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import { InvalidDelayError } from '../src/errors/invalid-delay.error.js';
import { InvalidOptionsError } from '../src/errors/invalid-options.error.js';
import { InvalidPayloadError } from '../src/errors/invalid-payload.error.js';
import { InvalidTimeoutIdError } from '../src/errors/invalid-timeout-id.error.js';
import { PayloadTooLargeError } from '../src/errors/payload-too-large.error.js';
import { TimeoutsStoppedError } from '../src/errors/timeouts-stopped.error.js';
import { UnknownTopicError } from '../src/errors/unknown-topic.error.js';
import { DurableTimeoutError } from '../src/errors/durable-timeout.error.js';
import { uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
let raw: Redis;
const rig = engineSuite(() => RedisServer.start(), (started) => {
  server = started;
  raw = started.client();
});

type Call = (timeouts: DurableTimeouts<'payment'>) => Promise<unknown>;
const schedule = (id: unknown, options: unknown): Call => (timeouts) => timeouts.schedule('payment', id as string, options as { delayMs: number });
const withPayload = (payload: unknown): Call => schedule('order-1', { delayMs: 10, payload });

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.back = cyclic;
let deep: unknown = 'leaf';
for (let i = 0; i < 70; i++) deep = [deep];

const cases: [string, Call, new (...args: never[]) => Error, RegExp][] = [
  ['an unknown topic (schedule)', (t) => t.schedule('refund' as 'payment', 'x', { delayMs: 1 }), UnknownTopicError, /Unknown topic "refund".*"payment"/],
  ['an unknown topic (cancel)', (t) => t.cancel('refund' as 'payment', 'x'), UnknownTopicError, /Unknown topic/],
  ['an unknown topic (get)', (t) => t.get('refund' as 'payment', 'x'), UnknownTopicError, /Unknown topic/],
  ['an unknown topic (stats)', (t) => t.stats('refund' as 'payment'), UnknownTopicError, /Unknown topic/],
  ['an unknown topic (replayDead)', (t) => t.replayDead('refund' as 'payment'), UnknownTopicError, /Unknown topic/],
  ['an empty id', schedule('', { delayMs: 1 }), InvalidTimeoutIdError, /empty/],
  ['an id over 512 characters', schedule('x'.repeat(513), { delayMs: 1 }), InvalidTimeoutIdError, /513 characters/],
  ['a numeric id', schedule(42, { delayMs: 1 }), InvalidTimeoutIdError, /got a number/],
  ['no id', schedule(undefined, { delayMs: 1 }), InvalidTimeoutIdError, /got undefined/],
  ['a bad id to cancel', (t) => t.cancel('payment', ''), InvalidTimeoutIdError, /empty/],
  // 'id-\uD800' and 'id-\uDBFF' would both be stored as 'id-\uFFFD': one timeout for two ids.
  ['an id with a lone high surrogate', schedule('id-\uD800', { delayMs: 1 }), InvalidTimeoutIdError, /lone UTF-16 surrogate at index 3/],
  ['an id with a lone low surrogate', schedule('id-\uDBFF-\uDC00', { delayMs: 1 }), InvalidTimeoutIdError, /lone UTF-16 surrogate/],
  ['a lone surrogate to cancel', (t) => t.cancel('payment', 'id-\uD800'), InvalidTimeoutIdError, /lone UTF-16 surrogate/],
  ['a lone surrogate to get', (t) => t.get('payment', '\uDC00'), InvalidTimeoutIdError, /lone UTF-16 surrogate/],
  ['a lone surrogate to replay', (t) => t.replayDead('payment', ['ok', 'x\uD83D']), InvalidTimeoutIdError, /lone UTF-16 surrogate/],
  ['bad ids to replay', (t) => t.replayDead('payment', ['ok', '']), InvalidTimeoutIdError, /empty/],
  ['no options', schedule('order-1', undefined), InvalidDelayError, /exactly one of/],
  ['neither delayMs nor at', schedule('order-1', { payload: 1 }), InvalidDelayError, /exactly one of/],
  ['both delayMs and at', schedule('order-1', { delayMs: 1, at: new Date() }), InvalidDelayError, /Both/],
  ['a negative delay', schedule('order-1', { delayMs: -1 }), InvalidDelayError, /negative/],
  ['a NaN delay', schedule('order-1', { delayMs: Number.NaN }), InvalidDelayError, /finite/],
  ['an infinite delay', schedule('order-1', { delayMs: Number.POSITIVE_INFINITY }), InvalidDelayError, /finite/],
  ['an absurd delay', schedule('order-1', { delayMs: 1e15 }), InvalidDelayError, /10 years/],
  ['an invalid Date', schedule('order-1', { at: new Date('not a date') }), InvalidDelayError, /Invalid Date/],
  ['an at in microseconds', schedule('order-1', { at: Date.now() * 1000 }), InvalidDelayError, /10 years ahead/],
  ['a function payload', withPayload({ run: () => 1 }), InvalidPayloadError, /payload\.run is a function/],
  ['a symbol payload', withPayload(Symbol('s')), InvalidPayloadError, /payload is a symbol/],
  ['a BigInt payload', withPayload({ cents: 10n }), InvalidPayloadError, /payload\.cents is a BigInt/],
  ['a cyclic payload', withPayload(cyclic), InvalidPayloadError, /payload\.back refers back/],
  ['an undefined payload', withPayload(undefined), InvalidPayloadError, /payload is undefined/],
  ['undefined inside the payload', withPayload({ a: [1, undefined] }), InvalidPayloadError, /payload\.a\[1\] is undefined/],
  ['NaN in the payload', withPayload({ n: Number.NaN }), InvalidPayloadError, /payload\.n is NaN/],
  ['a Date in the payload', withPayload({ at: new Date() }), InvalidPayloadError, /toISOString/],
  ['a Map payload', withPayload(new Map([[1, 2]])), InvalidPayloadError, /instance of Map/],
  ['a __proto__ key', withPayload(JSON.parse('{"__proto__":{"admin":true}}')), InvalidPayloadError, /"__proto__"/],
  ['a payload nested 70 deep', withPayload(deep), InvalidPayloadError, /more than 64 levels/],
  ['a payload over maxPayloadBytes', withPayload('x'.repeat(2_000)), PayloadTooLargeError, /2002 bytes.*maxPayloadBytes 1024/],
  ['a bad listDead page', (t) => t.listDead('payment', { limit: 0 }), InvalidOptionsError, /listDead limit/],
];

describe('bad input gets a typed error naming the problem and stores nothing', () => {
  it.each(cases)('%s', async (_name, call, errorClass, message) => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { maxPayloadBytes: 1024 } } });
    const failure = call(timeouts).then(
      () => undefined,
      (error: unknown) => error,
    );
    const error = await failure;
    expect(error).toBeInstanceOf(errorClass);
    expect((error as Error).name).toBe(errorClass.name);
    expect((error as Error).message).toMatch(message);
    expect(await raw.keys(`${prefix}:*`)).toEqual([]);
    expect((await timeouts.stats('payment')).pending).toBe(0);
  });

  it('every call after stop throws TimeoutsStoppedError', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: {} } });
    await timeouts.stop();
    const calls: Call[] = [
      schedule('a', { delayMs: 1 }),
      (t) => t.cancel('payment', 'a'),
      (t) => t.get('payment', 'a'),
      (t) => t.stats('payment'),
      (t) => t.listDead('payment'),
      (t) => t.replayDead('payment'),
      (t) => t.purgeDead('payment'),
      (t) => t.fireDue(),
      (t) => t.start(),
    ];
    for (const call of calls) {
      const error = await call(timeouts).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(TimeoutsStoppedError);
      expect(error).toBeInstanceOf(DurableTimeoutError);
    }
    expect(await raw.keys(`${prefix}:*`)).toEqual([]);
  });
});
