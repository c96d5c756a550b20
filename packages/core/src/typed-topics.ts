// The type-level part of typed topics: how a declaration of topics (a map of topic name to payload
// type, or just a union of names) turns into the topic names and payload types the engine's
// methods accept. Nothing here exists at run time.

/**
 * What the type parameter of `DurableTimeouts<TTopics>` (and of the Nest `TimeoutScheduler`) may
 * be:
 * - a map of topic name to payload type, `{ payment: PaymentDeadline; ride: RideDeadline }`:
 *   an unknown topic name and a payload of the wrong shape are compile errors, and handlers get
 *   their topic's payload type;
 * - a union of topic names, `'payment' | 'ride'` (what `new DurableTimeouts({ topics })` infers):
 *   topic names are checked, payloads are not;
 * - left out (`any`): anything goes, as in plain JavaScript.
 *
 * Payload types describe the JSON a topic carries: plain objects, arrays, strings, finite numbers,
 * booleans and null (a `Date`, `Map` or `bigint` is refused at run time with `InvalidPayloadError`:
 * declare an ISO string or a number instead). With a map, every `schedule` of the topic carries
 * its payload (a topic without data declares `null` and passes `payload: null`).
 */
export type TopicsDeclaration = string | object;


/**
 * The topic names of a declaration: the keys of a topic map, the names of a union, or `string`
 * for an untyped engine (`any` or `unknown`: `unknown` is what TypeScript infers for the type
 * argument of an injected generic class).
 *
 * ```ts
 * type Names = TopicName<{ payment: PaymentDeadline; ride: RideDeadline }>; // 'payment' | 'ride'
 * ```
 */
// (A union of names may arrive as `string | number`, inferred from an index signature: keep its strings.)
export type TopicName<TTopics> = unknown extends TTopics ? string : [TTopics] extends [PropertyKey] ? TTopics & string : keyof TTopics & string;

/**
 * The payload type of topic `K` in a declaration: the map's entry, or `any` when the declaration
 * names topics without their payloads (or is left out).
 *
 * ```ts
 * type P = TopicPayload<{ payment: PaymentDeadline }, 'payment'>; // PaymentDeadline
 * ```
 */
// (`TTopics[K & keyof TTopics]` rather than a conditional on K: it stays usable in generic code over K.)
export type TopicPayload<TTopics, K extends string> = unknown extends TTopics ? any : [TTopics] extends [PropertyKey] ? any : TTopics[K & keyof TTopics];

