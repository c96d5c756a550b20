import type { ScriptName } from '../commands/index.js';
import { unexpected, type ScriptArg } from './redis-replies.js';

/** What a slot's call is, in the `claimMany` script: an ack-many (`a`) or a claim (`c`). */
export type SlotCallKind = 'a' | 'c';

/** One slot's worker call as it would go on its own: its script, keys and arguments. */
export interface SlotCall {
  kind: SlotCallKind;
  /** The script it runs on its own (`claim`, `claimFew`, `ackMany`, `ackManyFew`). */
  script: ScriptName;
  keys: readonly string[];
  args: readonly ScriptArg[];
  /** How many ids it may touch: a claim's limit, an ack-many's entries (see `MAX_IDS_PER_CALL`). */
  ids: number;
}

interface Queued extends SlotCall {
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/**
 * Most ids the calls gathered into one `claimMany` may touch together (claimed or acked), the
 * bound of one claim (`MAX_CLAIM`), and most expired leases its claims deal with together (the
 * bound of one claim, `RECOVER_PER_CLAIM`; the script cuts each claim's share): the script's run
 * time, and so how long it holds Redis, stays about that of one full claim. A call over the bound
 * goes in a script call of its own.
 */
export const MAX_IDS_PER_CALL = 1_000;

/**
 * The batching step of the worker calls on one Redis server (one server or Sentinel, never a
 * Cluster, where one script may not touch keys of two hash slots): the claims and ack-manys of any
 * slots made in the same turn of the event loop wait here, and at its end (`setImmediate`, after
 * the timers and the I/O of that turn, so pollers whose timers fell due together meet) they travel
 * as one `claimMany` script call, acks first, each slot's part run by the same Lua code as its own
 * script (commands/includes/claim-slot.lua, ack-slot.lua) and answered with the same reply. A call
 * that is alone in its turn goes as its own script, as without this step. Each call settles with
 * its own reply, or its own error when its part raised one; a failure of the whole script call
 * (Redis unreachable) fails each of its calls, as their own calls would have failed.
 *
 * Gathering costs a claim at most one turn of the event loop. It never claims anything earlier:
 * each slot's part reads the Redis clock when it runs, so a cancel that reached Redis before a
 * timeout's due time still wins (docs/ENGINE.md, races).
 */
export class CallCoalescer {
  private queue: Queued[] = [];
  private scheduled = false;
  /**
   * Set once the server refused a shared call with CROSSSLOT: what looks like one server is a proxy
   * in front of several shards (a cluster without the cluster API). Each call then goes alone.
   */
  private alone = false;

  constructor(private readonly run: (name: ScriptName, keys: readonly string[], args: readonly ScriptArg[]) => Promise<unknown>) {}

  /** Queues one slot's call for the end of this turn; settles with the reply its own script would give. */
  add(call: SlotCall): Promise<unknown> {
    if (this.alone) return this.run(call.script, call.keys, call.args);
    return new Promise((resolve, reject) => {
      this.queue.push({ ...call, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(this.flush);
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const queued = this.queue;
    this.queue = [];
    for (const group of groups(queued)) this.send(group);
  };

  private send(group: readonly Queued[]): void {
    if (group.length === 1) {
      const [call] = group as [Queued];
      this.run(call.script, call.keys, call.args).then(call.resolve, call.reject);
      return;
    }
    const keys: string[] = [];
    const args: ScriptArg[] = [group.length, MAX_IDS_PER_CALL];
    for (const call of group) {
      keys.push(...call.keys);
      args.push(call.kind, call.keys.length, call.args.length, ...call.args);
    }
    this.run('claimMany', keys, args).then(
      (reply) => {
        if (!Array.isArray(reply) || reply.length !== group.length) {
          const error = unexpected('claimMany', reply);
          for (const call of group) call.reject(error);
          return;
        }
        group.forEach((call, i) => {
          const part: unknown = reply[i];
          if (part instanceof Error) call.reject(part);
          else call.resolve(part);
        });
      },
      (error: unknown) => {
        if (error instanceof Error && /^(?:ERR\s+)?CROSSSLOT\b/.test(error.message)) {
          // Nothing ran (the server refuses a script whose keys span shards before running it).
          this.alone = true;
          for (const call of group) this.run(call.script, call.keys, call.args).then(call.resolve, call.reject);
          return;
        }
        for (const call of group) call.reject(error);
      },
    );
  }
}

/**
 * The script calls of one turn: acks before claims (an ack applied first frees its lease before
 * the slot's claim reads the lease set), in the order they came otherwise, cut so that no call
 * touches more than `MAX_IDS_PER_CALL` ids.
 */
export function groups<T extends SlotCall>(queued: readonly T[]): T[][] {
  const ordered = [...queued.filter((call) => call.kind === 'a'), ...queued.filter((call) => call.kind === 'c')];
  const result: T[][] = [];
  let current: T[] = [];
  let ids = 0;
  for (const call of ordered) {
    if (current.length > 0 && ids + call.ids > MAX_IDS_PER_CALL) {
      result.push(current);
      current = [];
      ids = 0;
    }
    current.push(call);
    ids += call.ids;
  }
  if (current.length > 0) result.push(current);
  return result;
}
