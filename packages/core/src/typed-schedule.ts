// What `schedule` and `scheduleMany` take for a topic of a declaration (see typed-topics.ts).
import type { ScheduleIfExists, ScheduleOptions, ScheduleTiming } from './types.js';
import type { TopicPayload } from './typed-topics.js';

/**
 * The options `schedule` takes for topic `K` of a declaration: `ScheduleOptions` with the topic's
 * payload type. With a map of topics the payload is required (the handler's type promises one);
 * without a map (names only, or untyped) it is optional, as `ScheduleOptions`' is.
 */
export type TopicScheduleOptions<TTopics, K extends string> = unknown extends TTopics
  ? ScheduleOptions<any>
  : [TTopics] extends [PropertyKey]
    ? ScheduleOptions<any>
    : ScheduleTiming & {
        /** Data handed to the handler, of the topic's payload type; JSON, within the topic's `maxPayloadBytes`. */
        payload: TopicPayload<TTopics, K>;
        /** What to do when the id already exists (default `replace`); see `ScheduleIfExists`. */
        ifExists?: ScheduleIfExists | undefined;
      };

/** One item of `scheduleMany` for topic `K` of a declaration: its id and `TopicScheduleOptions`. */
export type TopicScheduleManyItem<TTopics, K extends string> = TopicScheduleOptions<TTopics, K> & {
  /** The timeout's id, as for `schedule`. */
  id: string;
};
