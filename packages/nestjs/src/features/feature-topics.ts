import type { ModulesContainer } from '@nestjs/core';
import type { TopicOptions } from '@durable-timeout/core';
import { TopicDeclarationConflictError } from '../errors/topic-declaration-conflict.error.js';

/** Injection token of the topics a `forFeature(...)` module declares (a `FeatureTopics`). */
export const DURABLE_TIMEOUT_FEATURE = 'durable-timeout:feature';

/** The value behind `DURABLE_TIMEOUT_FEATURE`: the topics one `forFeature` call declared. */
export interface FeatureTopics {
  /** The topics and their options, as given to `forFeature`. */
  topics: Readonly<Record<string, TopicOptions>>;
}

/** A declaration of topics and who made it (for the conflict message). */
export interface TopicDeclaration {
  /** Who declared them: `DurableTimeoutModule.forRoot`, or the modules importing the feature. */
  declaredBy: string;
  /** The declared topics and their options. */
  topics: Readonly<Record<string, TopicOptions>>;
}

/** Who declares the topics of `forRoot` / `forRootAsync`, in messages. */
export const ROOT_DECLARER = 'DurableTimeoutModule.forRoot';

/**
 * The topics every `forFeature(...)` of the application declared, each with the names of the
 * modules that import it. Read from the scanned modules: every feature module is known before any
 * provider is created, and its topics are a plain value.
 */
export function featureDeclarations(modules: ModulesContainer): TopicDeclaration[] {
  const declarations: TopicDeclaration[] = [];
  for (const module of modules.values()) {
    const feature = module.providers.get(DURABLE_TIMEOUT_FEATURE)?.instance as FeatureTopics | undefined;
    if (feature === undefined) continue;
    const importers = [...modules.values()].filter((other) => other.imports.has(module)).map((other) => other.metatype.name);
    declarations.push({ declaredBy: importers.length > 0 ? importers.join(' and ') : 'DurableTimeoutModule.forFeature', topics: feature.topics });
  }
  return declarations;
}

/**
 * One `topics` option out of several declarations. A topic declared twice must be declared with
 * the same options (then it is one topic); otherwise `TopicDeclarationConflictError` names both.
 */
export function mergeTopicDeclarations(declarations: readonly TopicDeclaration[]): Record<string, TopicOptions> {
  const merged: Record<string, TopicOptions> = {};
  const owner = new Map<string, string>();
  for (const { declaredBy, topics } of declarations) {
    for (const [topic, options] of Object.entries(topics)) {
      const first = owner.get(topic);
      if (first === undefined) {
        owner.set(topic, declaredBy);
        merged[topic] = options;
      } else if (canonical(merged[topic]) !== canonical(options) || merged[topic]?.codec !== options?.codec) {
        // A codec is compared by identity: its JSON (its methods left out) says nothing of its keys.
        throw new TopicDeclarationConflictError(topic, [first, declaredBy]);
      }
    }
  }
  return merged;
}

/** JSON with object keys sorted, so that two equal option objects compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
