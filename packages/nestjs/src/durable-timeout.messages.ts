import type { DrainSummary } from '@durable-timeout/core';

/** Where a handler was found: the class and method that carry `@OnTimeout`. */
export interface HandlerLocation {
  className: string;
  methodName: string;
}

const where = (location: HandlerLocation): string => `${location.className}.${location.methodName}()`;

/**
 * Every text the Nest integration shows (errors and log lines), built in one place. Each error
 * says what is wrong and what to do about it.
 */
export const durableTimeoutMessages = {
  duplicateHandler: (topic: string, first: HandlerLocation, second: HandlerLocation): string =>
    `Two @OnTimeout('${topic}') handlers: ${where(first)} and ${where(second)}. ` +
    'A topic has exactly one handler per application: remove one of them, or give it a topic of its own ' +
    '(if both are the same class, it is provided in two modules: provide it once).',

  unknownTopic: (topic: string, location: HandlerLocation, configured: readonly string[]): string =>
    `${where(location)} handles @OnTimeout('${topic}'), but '${topic}' is not a configured topic ` +
    `(configured: ${configured.length > 0 ? configured.map((name) => `'${name}'`).join(', ') : 'none'}). ` +
    `Add '${topic}' to the topics of DurableTimeoutModule.forRoot(...) or of a forFeature(...), or fix the decorator's topic.`,

  invalidTopicName: (location: HandlerLocation): string =>
    `@OnTimeout on ${where(location)} needs a topic name (a non-empty string), e.g. @OnTimeout('payment').`,

  requestScopedHandler: (location: HandlerLocation): string =>
    `${where(location)} has @OnTimeout but its provider is request-scoped (or depends on one); ` +
    'timeouts fire outside any request, so it is ignored. Make the provider a singleton.',

  duplicateSchedule: (name: string, first: HandlerLocation, second: HandlerLocation): string =>
    `Two @OnSchedule('${name}') handlers: ${where(first)} and ${where(second)}. ` +
    'A schedule has exactly one handler per application: remove one of them, or give it a name of its own.',

  schedulesTopicMissing: (name: string, location: HandlerLocation, configured: readonly string[]): string =>
    `${where(location)} has @OnSchedule('${name}'), but recurring schedules live in the topic 'schedules', which is not configured ` +
    `(configured: ${configured.length > 0 ? configured.map((topic) => `'${topic}'`).join(', ') : 'none'}). ` +
    "Add it to the topics of DurableTimeoutModule.forRoot(...), e.g. topics: { schedules: {} }.",

  schedulesUpserted: (names: readonly string[]): string => `Recurring schedules declared: ${names.map((name) => `'${name}'`).join(', ')}.`,

  topicWithoutHandler: (topic: string): string =>
    `Topic '${topic}' has no @OnTimeout handler in this application: it can be scheduled here ` +
    'and is fired by the instances that handle it.',

  drainStarted: (drainMs: number): string =>
    `Shutting down: no new timeouts are claimed; waiting up to ${drainMs} ms (drainMs) for the running handlers.`,

  drained: (summary: DrainSummary): string =>
    `Drained in ${summary.tookMs} ms: ${summary.handlersFinished} of ${summary.handlersRunning} running handler(s) finished` +
    (summary.handlersAborted > 0 ? `, ${summary.handlersAborted} still running at drainMs had their signal aborted` : '') +
    `; ${summary.handedBack} timeout(s) handed back for another instance to fire at once.`,

  pollersStarted: (topics: readonly string[]): string => `Firing timeouts of ${topics.map((t) => `'${t}'`).join(', ')}.`,

  noHandlers: (): string => 'No @OnTimeout handlers in this application: it schedules timeouts, other instances fire them.',

  invalidOptions: (problem: string): string =>
    `DurableTimeoutModule options refused: ${problem} Fix the object passed to forRoot(...) or returned by the forRootAsync factory.`,

  topicDeclaredTwice: (topic: string, [first, second]: readonly [string, string]): string =>
    `Topic '${topic}' is declared by ${first} and again by ${second} with different options. ` +
    'Declare each topic once, in the module that owns it (or give both declarations the same options).',

  declaredByFeature: (topic: string, declaredBy: string): string =>
    `(Topic '${topic}' is declared by DurableTimeoutModule.forFeature(...) in ${declaredBy}: fix its options there.)`,

  topicDeclaredAgainByOneModule: (topic: string, declaredBy: string): string =>
    `Topic '${topic}' is declared twice by ${declaredBy} (two forFeature(...) calls) with different options. Declare it once.`,

  featureWithoutEngine: (topics: readonly string[]): string =>
    `DurableTimeoutModule.forFeature(...) declares ${topics.map((t) => `'${t}'`).join(', ')}, but the application has no ` +
    'DurableTimeoutModule.forRoot(...) / forRootAsync(...) (or DurableTimeoutTestingModule.forRoot(...)) to take them: import one in the root module.',

  featureAfterBootstrap: (topics: readonly string[]): string =>
    `DurableTimeoutModule.forFeature(...) declares ${topics.map((t) => `'${t}'`).join(', ')} in a module loaded after the engine was created ` +
    '(a lazy-loaded module): its topics were not added. Declare them in forRoot(...) or in a forFeature(...) of an eagerly imported module.',

  invalidFeatureOptions: (problem: string): string =>
    `DurableTimeoutModule.forFeature(...) refused: ${problem} Pass { topics: { <name>: { ...topic options } } }, e.g. { topics: { payment: {} } }.`,

  optionsNotObject: (): string => 'the options must be an object with at least `topics`, e.g. { topics: { payment: {} } }.',

  notStarted: (): string =>
    'The durable-timeout module did not start: its onApplicationBootstrap failed (see the error logged before). ' +
    'Check the Redis connection and restart the application.',

  storageUnavailable: (): string =>
    'Timeouts cannot be stored or read right now (Redis is not answering). Nothing was changed by this request: retry in a few seconds.',

  migrating: (): string =>
    'This timeout is being moved by a change of its topic\'s slot count. Nothing was changed by this request: retry in a few seconds.',

  shuttingDown: (): string => 'This instance is shutting down and takes no new timeouts. Retry: another instance will answer.',
};
