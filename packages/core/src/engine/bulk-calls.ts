import type { SlotRef } from '../store/timeout-store.js';
import { isSlotRefusal } from '../store/item-results.js';
import type { TopicLayouts } from './topic-layouts.js';
import { asError } from '../support/to-error.js';

/** The outcome of one item of a bulk call: its value, or the error that refused or failed it. */
export type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: Error };

/**
 * Runs a bulk call on ids of one topic: groups the items by the slot their id is routed to, makes
 * one store call per slot (all started in the same tick, so the Redis store pipelines them across
 * slots), and returns one outcome per item, in the order given. A store call that fails fails the
 * items of its slot only. An item a slot migration refused (its slot moved or is being moved) is
 * sent again on its own through `layouts.callById`, which follows the move.
 */
export async function runPerSlot<TItem extends { id: string }, TResult>(
  layouts: TopicLayouts,
  topic: string,
  items: readonly TItem[],
  callMany: (ref: SlotRef, items: readonly TItem[]) => Promise<(TResult | Error)[]>,
  callOne: (ref: SlotRef, item: TItem) => Promise<TResult>,
): Promise<ItemOutcome<TResult>[]> {
  const groups = layouts.groupByRoute(topic, items.keys(), (index) => items[index]!.id);
  const outcomes: ItemOutcome<TResult>[] = new Array(items.length);
  await Promise.all(
    [...groups].map(async ([ref, indexes]) => {
      let results: (TResult | Error)[];
      try {
        results = await callMany(
          ref,
          indexes.map((index) => items[index]!),
        );
      } catch (error) {
        for (const index of indexes) outcomes[index] = { ok: false, error: asError(error) };
        return;
      }
      const rerouted: Promise<void>[] = [];
      indexes.forEach((index, i) => {
        const result = results[i];
        if (!(result instanceof Error)) outcomes[index] = { ok: true, value: result as TResult };
        else if (!isSlotRefusal(result)) outcomes[index] = { ok: false, error: result };
        else {
          const item = items[index]!;
          rerouted.push(
            layouts.callById(topic, item.id, (moved) => callOne(moved, item)).then(
              (value) => void (outcomes[index] = { ok: true, value }),
              (error: unknown) => void (outcomes[index] = { ok: false, error: asError(error) }),
            ),
          );
        }
      });
      await Promise.all(rerouted);
    }),
  );
  return outcomes;
}
