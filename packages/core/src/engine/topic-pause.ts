import type { SlotRef } from '../store/timeout-store.js';
import type { ResumeOptions, TopicPauseState, TopicResumeResult } from '../types.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';

/**
 * `pause`, `resume` and `paused` of a topic: a pause marker on every slot of the topic, kept in
 * the store, which every claim reads (so no instance fires anything of the topic while it is set).
 * A slot migration under way counts the slots of both counts: `pause` and `resume` read the
 * topic's layout before and after acting, and act on the slots a migration begun meanwhile adds
 * (the migration itself carries the pause to them, `migrateSlots`). The store's resume wakes every
 * instance's pollers of the slot; this instance's are also swept at once (`sweep`).
 */
export class TopicPause {
  constructor(
    private readonly context: EngineContext,
    /** Claims every slot of the topic now in this instance (its pollers, if it handles the topic). */
    private readonly sweep: (topic: string) => void,
  ) {}

  /** `DurableTimeouts.pause`, for a known topic. */
  async pause(topic: string): Promise<TopicPauseState> {
    await this.context.ensureInit(topic, 'none');
    const { reads, logger } = this.context;
    const states = await this.eachSlot(topic, (ref) => reads.pause(ref));
    const pausedAt = Math.min(...states.map((state) => state.pausedAt ?? state.now));
    logger?.log(engineMessages.topicPaused(topic), { topic });
    return { topic, paused: true, pausedAt };
  }

  /** `DurableTimeouts.resume`, for a known topic. */
  async resume(topic: string, options: ResumeOptions): Promise<TopicResumeResult> {
    await this.context.ensureInit(topic, 'none');
    const { reads, logger } = this.context;
    const shift = options.shift === true;
    const results = await this.eachSlot(topic, (ref) => reads.resume(ref, shift));
    let pausedMs = 0;
    let shifted = 0;
    let resumed = false;
    for (const result of results) {
      if (result.pausedAt === null) continue;
      resumed = true;
      pausedMs = Math.max(pausedMs, result.now - result.pausedAt);
      shifted += result.shifted;
    }
    this.sweep(topic);
    if (resumed) logger?.log(engineMessages.topicResumed(topic, pausedMs, shift, shifted), { topic, pausedMs, shifted });
    return { topic, resumed, pausedMs, shifted };
  }

  /** `DurableTimeouts.pauseState`, for a known topic: paused when any of its slots is. */
  async state(topic: string): Promise<TopicPauseState> {
    await this.context.ensureInit(topic, 'none');
    const { layouts, reads } = this.context;
    const states = await Promise.all(layouts.slotRefs(topic).map((ref) => reads.pauseState(ref)));
    const times = states.flatMap((state) => (state.pausedAt === null ? [] : [state.pausedAt]));
    return times.length === 0 ? { topic, paused: false, pausedAt: null } : { topic, paused: true, pausedAt: Math.min(...times) };
  }

  /**
   * Runs `call` once on every slot of `topic`: those of its layout read now, then those a slot
   * migration begun meanwhile added, until a read of the layout finds no slot left. Each read is
   * begun after the calls before it (`refresh`'s `fresh`): one shared with a read begun earlier
   * could answer the layout from before a migration that began meanwhile, and miss its slots.
   */
  private async eachSlot<T>(topic: string, call: (ref: SlotRef) => Promise<T>): Promise<T[]> {
    const { layouts } = this.context;
    const done = new Set<SlotRef>();
    const results: T[] = [];
    for (;;) {
      await layouts.refresh(topic, true);
      const refs = layouts.slotRefs(topic).filter((ref) => !done.has(ref));
      if (refs.length === 0) return results;
      for (const ref of refs) done.add(ref);
      results.push(...(await Promise.all(refs.map(call))));
    }
  }
}
