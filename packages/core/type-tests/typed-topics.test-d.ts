// What typed topics promise at compile time. Each `@ts-expect-error` line must fail to compile (tsc
// reports an unused directive otherwise); each expectTypeOf must hold exactly.
import { expectTypeOf } from 'expect-type';
import { DurableTimeouts, type JsonValue, type ScheduleResult, type TimeoutEvent, type TimeoutInfo } from '@durable-timeout/core';
import { createTestingTimeouts } from '@durable-timeout/core/testing';

interface PaymentDeadline {
  orderId: string;
  amount: number;
}
interface RideDeadline {
  tripId: string;
}
type Topics = { payment: PaymentDeadline; ride: RideDeadline };

declare const connection: string;

// Options read from the environment may be undefined (exactOptionalPropertyTypes is on here).
new DurableTimeouts({ connection: process.env.REDIS_URL, prefix: process.env.PREFIX, logger: undefined, topics: { payment: { slots: undefined } } });

const typed = new DurableTimeouts<Topics>({ connection, topics: { payment: {}, ride: { slots: 4 } } });

// A map of topics: payloads by topic, in and out.
typed.handle('payment', (event) => {
  expectTypeOf(event).toEqualTypeOf<TimeoutEvent<PaymentDeadline>>();
  expectTypeOf(event.payload.amount).toEqualTypeOf<number>();
});
typed.handle('ride', async (event) => {
  expectTypeOf(event.payload).toEqualTypeOf<RideDeadline>();
});
expectTypeOf(typed.schedule('payment', 'o-1', { delayMs: 60_000, payload: { orderId: 'o-1', amount: 42 } })).resolves.toEqualTypeOf<ScheduleResult>();
void typed.scheduleMany('ride', [{ id: 't-1', delayMs: 1_000, payload: { tripId: 't-1' } }]);
expectTypeOf(typed.get('ride', 't-1')).resolves.toEqualTypeOf<TimeoutInfo<RideDeadline> | null>();
expectTypeOf(typed.listDead('payment')).resolves.items.toHaveProperty('payload').toEqualTypeOf<PaymentDeadline>();
expectTypeOf(typed.listPending('payment')).resolves.items.toHaveProperty('payload').toEqualTypeOf<PaymentDeadline>();
expectTypeOf(typed.topics).toEqualTypeOf<('payment' | 'ride')[]>();

// @ts-expect-error a payload of another topic's shape
void typed.schedule('payment', 'o-1', { delayMs: 1, payload: { tripId: 't-1' } });
// @ts-expect-error a payload with a field of the wrong type
void typed.schedule('payment', 'o-1', { delayMs: 1, payload: { orderId: 'o-1', amount: '42' } });
// @ts-expect-error an unknown topic
void typed.schedule('paymnt', 'o-1', { delayMs: 1 });
// @ts-expect-error an unknown topic for cancel
void typed.cancel('refund', 'o-1');
// @ts-expect-error a bulk item of the wrong shape
void typed.scheduleMany('ride', [{ id: 't-1', delayMs: 1, payload: { orderId: 'o-1' } }]);
// @ts-expect-error a handler written for another topic's payload
typed.handle('ride', (event: TimeoutEvent<PaymentDeadline>) => event.payload.amount);
// @ts-expect-error a declared topic without its options
new DurableTimeouts<Topics>({ connection, topics: { payment: {} } });
// @ts-expect-error options for a topic that is not declared
new DurableTimeouts<Topics>({ connection, topics: { payment: {}, ride: {}, refund: {} } });

// @ts-expect-error a map topic's schedule carries its payload (the handler's type promises one)
void typed.schedule('payment', 'o-1', { delayMs: 1 });
// A topic without data declares null and passes it.
const quiet = new DurableTimeouts<{ reminder: null }>({ connection, topics: { reminder: {} } });
void quiet.schedule('reminder', 'r-1', { delayMs: 1, payload: null });

// Generic code over the topics of a typed engine compiles.
function arm<K extends keyof Topics & string>(engine: DurableTimeouts<Topics>, topic: K, payload: Topics[K]) {
  return engine.schedule(topic, 'x', { delayMs: 1, payload });
}
void arm(typed, 'ride', { tripId: 't-1' });
// @ts-expect-error the generic helper still checks its callers
void arm(typed, 'ride', { orderId: 'o-1', amount: 1 });

// Names inferred from the options: names checked, payloads free.
const inferred = new DurableTimeouts({ connection, topics: { payment: {}, ride: {} } });
expectTypeOf(inferred).toEqualTypeOf<DurableTimeouts<'payment' | 'ride'>>();
void inferred.schedule('payment', 'o-1', { delayMs: 1, payload: { anything: [1, 2] } });
inferred.handle('ride', (event: TimeoutEvent<RideDeadline>) => event.payload.tripId);
// @ts-expect-error an unknown topic
void inferred.schedule('refund', 'o-1', { delayMs: 1 });

// Untyped (no type argument, as from JavaScript or a variable typed `DurableTimeouts`): any topic name.
declare const untyped: DurableTimeouts;
void untyped.schedule('anything', 'x', { delayMs: 1, payload: new Map() });
untyped.handle('anything', (event: TimeoutEvent<JsonValue>) => event.payload);
// @ts-expect-error still a string
void untyped.cancel(42, 'x');
// @ts-expect-error timing stays exclusive: delayMs or at, not both
void untyped.schedule('anything', 'x', { delayMs: 1, at: new Date() });

// Every engine is a `DurableTimeouts`: typed ones go where any engine is taken.
const anyEngine: DurableTimeouts[] = [typed, inferred];
void anyEngine;

// The testing helper takes the same declaration.
const testing = createTestingTimeouts<Topics>({ topics: { payment: {}, ride: {} } });
testing.timeouts.handle('payment', (event) => {
  expectTypeOf(event.payload).toEqualTypeOf<PaymentDeadline>();
});
// @ts-expect-error an unknown topic
void testing.timeouts.schedule('refund', 'x', { delayMs: 1 });
