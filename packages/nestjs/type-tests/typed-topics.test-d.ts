// The Nest integration's typed topics with explicit type arguments (no DurableTimeoutTopics
// augmentation in this program: untyped stays untyped). See registry/ for the augmented form.
import { expectTypeOf } from 'expect-type';
import { DurableTimeoutModule, OnTimeout, TimeoutScheduler, type TimeoutEvent, type TimeoutInfo } from '@durable-timeout/nestjs';
import { DurableTimeoutTestingModule } from '@durable-timeout/nestjs/testing';

interface PaymentDeadline {
  orderId: string;
}
type Topics = { payment: PaymentDeadline };

declare const scheduler: TimeoutScheduler<Topics>;
void scheduler.schedule('payment', 'o-1', { delayMs: 1, payload: { orderId: 'o-1' } });
expectTypeOf(scheduler.get('payment', 'o-1')).resolves.toEqualTypeOf<TimeoutInfo<PaymentDeadline> | null>();
// @ts-expect-error wrong payload shape
void scheduler.schedule('payment', 'o-1', { delayMs: 1, payload: { order: 'o-1' } });
// @ts-expect-error unknown topic
void scheduler.cancel('refund', 'o-1');

// Without a declaration, anything goes (as before typed topics).
declare const untyped: TimeoutScheduler;
void untyped.schedule('anything', 'x', { delayMs: 1, payload: { any: 'thing' } });

// forRoot / forFeature / the testing module check their topics against a declaration.
DurableTimeoutModule.forRoot<Topics>({ connection: 'redis://localhost:6379', topics: { payment: { maxAttempts: 3 } } });
DurableTimeoutModule.forFeature<Topics>({ topics: { payment: {} } });
DurableTimeoutTestingModule.forRoot<Topics>({ topics: { payment: {} } });
DurableTimeoutModule.forRoot({ connection: 'redis://localhost:6379' });
// @ts-expect-error a declared topic without options
DurableTimeoutModule.forFeature<Topics>({ topics: {} });
// @ts-expect-error options for an undeclared topic
DurableTimeoutModule.forRoot<Topics>({ topics: { payment: {}, refund: {} } });

// Without the registry, @OnTimeout takes any topic and any handler signature.
export class UntypedHandlers {
  @OnTimeout('anything')
  onAnything(event: TimeoutEvent<{ whatever: number }>): number {
    return event.payload.whatever;
  }
}
