import { DurableTimeouts, InvalidOptionsError, type TopicOptions } from '@durable-timeout/core';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import type { DurableTimeoutModuleOptions, DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { NestTimeoutLogger } from './nest-timeout.logger.js';
import { mergeTopicDeclarations, ROOT_DECLARER, type TopicDeclaration } from './features/feature-topics.js';

/**
 * Creates the module's engine. The core validates every option and fills in every default (one
 * rule, the same `stop()` applies); what it refuses becomes `InvalidModuleOptionsError`, with the
 * core's error as its `cause`. `logger` defaults to Nest's `Logger`.
 */
export function createModuleEngine(options: DurableTimeoutModuleOptions, features: readonly TopicDeclaration[] = []): DurableTimeouts {
  if (options === null || typeof options !== 'object') {
    throw new InvalidModuleOptionsError(durableTimeoutMessages.optionsNotObject());
  }
  try {
    return new DurableTimeouts({ logger: new NestTimeoutLogger(), ...options, topics: withFeatureTopics(options.topics, features) });
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new InvalidModuleOptionsError(error.message + featureHint(error.message, features), { cause: error });
  }
}

/** When the core refused the options of a topic a feature declared: which module to fix. */
function featureHint(message: string, features: readonly TopicDeclaration[]): string {
  const topic = /\btopics\.([^\s.:'"`]+)/.exec(message)?.[1];
  const feature = topic === undefined ? undefined : features.find((declaration) => Object.hasOwn(declaration.topics, topic));
  return feature === undefined ? '' : ` ${durableTimeoutMessages.declaredByFeature(topic!, feature.declaredBy)}`;
}

/**
 * The `topics` of `forRoot` with those of every `forFeature` (a topic declared twice with
 * different options is `TopicDeclarationConflictError`). Without features, or when `topics` is not
 * an object (the engine then says what is wrong with it), the root's `topics` as given.
 */
export function withFeatureTopics(topics: DurableTimeoutModuleOptions['topics'], features: readonly TopicDeclaration[]): Record<string, TopicOptions> {
  const rootTopics: unknown = topics;
  const asGiven = topics as Record<string, TopicOptions>;
  if (features.length === 0) return asGiven;
  if (rootTopics !== undefined && (rootTopics === null || typeof rootTopics !== 'object' || Array.isArray(rootTopics))) return asGiven;
  return mergeTopicDeclarations([{ declaredBy: ROOT_DECLARER, topics: topics ?? {} }, ...features]);
}

/** The module's settings: what its engine runs with (read from the engine, so never a second copy of its defaults). */
export function settingsOf(engine: Pick<DurableTimeouts, 'settings'>, startPollers = true): DurableTimeoutSettings {
  const { topics, drainMs, sweepIntervalMs, commandTimeoutMs } = engine.settings;
  return { topics: Object.freeze(Object.keys(topics)), drainMs, sweepIntervalMs, commandTimeoutMs, startPollers };
}
