import fc from 'fast-check';
import { migrateSlots } from '@durable-timeout/core';
import type { AckResult, FailOutcome, LateAction, ReleaseResult, RenewResult, SlotRef, StoreScheduleEntry, TimeoutStore } from '@durable-timeout/core';
import { MODEL_EXPIRY, StoreModel } from './reference-model.js';

/** The store under test and what a run may do to it. */
export interface ModelSubject {
  store: TimeoutStore;
  /** Lets `ms` of store time pass (Redis really waits; a manual clock advances). */
  advance(ms: number): Promise<void>;
}

type Check = (model: StoreModel, subject: ModelSubject) => Promise<void>;
type Command = fc.AsyncCommand<StoreModel, ModelSubject>;

export const TOPIC = 'payment';
/** A few ids, some awkward (braces, colons, bars, commas, non-ASCII, prototype names), so they share slots and collide. */
export const IDS = ['a', 'b', 'order:{1}', 'ünï-🚕', 'x|,y', '__proto__'] as const;
const SLOT_COUNTS = [1, 2, 4, 8] as const;
/** Lease times: one that runs out within a step or two, one that never does. */
const LEASES = [20, 3_600_000] as const;
/** A claim's late policy: none, or one of each action, with an afterMs a step may or may not outrun. */
const lateOption = fc.option(fc.record({ afterMs: fc.constantFrom(0, 15, 3_600_000), action: fc.constantFrom<LateAction>('fire', 'dead-letter', 'skip') }), {
  nil: undefined,
});
/** Most slots an ack, fail or release follows after migrations moved its delivery. */
const MAX_FORWARDS = 4;

/** Throws, naming the call, when the store's answer differs from the model's (key order aside). */
function same(what: string, actual: unknown, expected: unknown): void {
  const a = canonical(actual);
  const e = canonical(expected);
  if (a !== e) throw new Error(`${what}: the store answered ${a}, the model expected ${e}`);
}

/** JSON with object keys sorted, so two answers compare by content only. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** A command: its text (for the shrunk sequence fast-check prints) and what it does. */
function command(text: string, run: Check): Command {
  return { check: () => true, run: (model, subject) => run(model, subject), toString: () => text };
}

function ref(model: StoreModel, id: string): SlotRef {
  return { topic: TOPIC, slot: model.slotOf(id), slots: model.slots };
}

/** Reads `id` from the store and checks it against the model, adopting a due time only the store knows (a release or replay: its clock then). */
async function checkGet(model: StoreModel, subject: ModelSubject, id: string, adoptDueAt = false): Promise<void> {
  const actual = await subject.store.reads.get(ref(model, id), id);
  const entry = model.entries.get(id);
  if (adoptDueAt && entry && actual) entry.dueAt = model.later(actual.dueAt);
  const expected = model.expectedGet(id);
  if (expected === null || actual === null) return same(`get("${id}")`, actual, expected);
  const { scheduledAt: _scheduledAt, lastError, ...rest } = actual;
  same(`get("${id}")`, rest, expected);
  same(`get("${id}").lastError`, lastError ?? null, entry?.lastError ?? null);
}

/** Sends a call on a delivery to the slot it was claimed from, and on to where migrations moved it. */
async function followForwards<T>(model: StoreModel, id: string, call: (slot: SlotRef) => Promise<T>, forwardedTo: (result: T) => number | undefined): Promise<T> {
  const entry = model.entries.get(id);
  let slot = entry && entry.claimedIn >= 0 ? entry.claimedIn : model.slotOf(id);
  for (let hops = 0; ; hops++) {
    const result = await call({ topic: TOPIC, slot });
    const next = forwardedTo(result);
    if (next === undefined || hops >= MAX_FORWARDS) return result;
    slot = next;
  }
}

/** The token a call on `id` carries: the current one, an older one, one never handed, or 0. */
function tokenOf(model: StoreModel, id: string, pick: number): number {
  const entry = model.entries.get(id);
  const current = entry?.token ?? 0;
  return [current, current - 1, current + 1, 0][pick] ?? current;
}

/** Due times of `schedule` with `at`, from the store clock: already due, due after an `advance`, never due in a run. */
const AT_OFFSETS = { past: -50, soon: 30, later: 3_600_000 } as const;

const id = fc.constantFrom(...IDS);
const payload = fc.constantFrom('null', '{"n":1}', '"text | with, bars"', '[1,{"a":null}]');

/** Every command a model run picks from. */
export function modelCommands(): fc.Arbitrary<Command>[] {
  return [
    fc.record({ id, payload, timing: fc.constantFrom('past', 'soon', 'later', 'delay' as const), ifExists: fc.constantFrom(undefined, 'replace', 'keep', 'earlier', 'later' as const) }).map(
      ({ id: target, payload: text, timing, ifExists }) =>
        command(`schedule(${target}, ${timing}, ${text}${ifExists === undefined ? '' : `, ${ifExists}`})`, async (model, subject) => {
          const now = await subject.store.now();
          const entry: StoreScheduleEntry = timing === 'delay' ? { delayMs: 3_600_000, payload: text } : { at: now + AT_OFFSETS[timing], payload: text };
          if (ifExists !== undefined) entry.ifExists = ifExists;
          const result = await subject.store.writes.schedule(ref(model, target), target, entry);
          // A delay counts from the store clock at the call: somewhere between `now` and the clock after the answer.
          const requested = entry.at === undefined ? { min: now + 3_600_000, max: (await subject.store.now()) + 3_600_000 } : { min: entry.at, max: entry.at };
          same(`schedule(${target})`, result, model.scheduled(target, text, ifExists, requested, result));
        }),
    ),
    fc
      .array(fc.record({ id, payload, ifExists: fc.constantFrom(undefined, 'keep', 'earlier', 'later' as const), soon: fc.boolean() }), { minLength: 1, maxLength: 4 })
      .map((items) =>
        command(`scheduleMany(${items.map((item) => `${item.id} ${item.soon ? 'soon' : 'later'}${item.ifExists ? ` ${item.ifExists}` : ''}`).join(', ')})`, async (model, subject) => {
          const now = await subject.store.now();
          // One store call per slot, as the engine makes them; the items of a slot in the order given.
          const bySlot = new Map<number, typeof items>();
          for (const item of items) bySlot.set(model.slotOf(item.id), [...(bySlot.get(model.slotOf(item.id)) ?? []), item]);
          for (const slotItems of bySlot.values()) {
            const entries = slotItems.map((item) => {
              const entry: StoreScheduleEntry = { at: now + (item.soon ? AT_OFFSETS.soon : AT_OFFSETS.later), payload: item.payload };
              if (item.ifExists !== undefined) entry.ifExists = item.ifExists;
              return { id: item.id, entry };
            });
            const results = await subject.store.writes.scheduleMany(ref(model, slotItems[0]!.id), entries);
            entries.forEach(({ id: target, entry }, i) => {
              const result = results[i]!;
              if (result instanceof Error) throw result;
              same(`scheduleMany item ${i} (${target})`, result, model.scheduled(target, entry.payload, entry.ifExists, { min: entry.at!, max: entry.at! }, result));
            });
          }
        }),
      ),
    fc.array(id, { minLength: 1, maxLength: 4 }).map((targets) =>
      command(`cancelMany(${targets.join(', ')})`, async (model, subject) => {
        const bySlot = new Map<number, string[]>();
        for (const target of targets) bySlot.set(model.slotOf(target), [...(bySlot.get(model.slotOf(target)) ?? []), target]);
        for (const slotIds of bySlot.values()) {
          const results = await subject.store.writes.cancelMany(ref(model, slotIds[0]!), slotIds);
          same(`cancelMany(${slotIds.join(', ')})`, results, slotIds.map((target) => model.cancel(target)));
        }
      }),
    ),
    id.map((target) =>
      command(`cancel(${target})`, async (model, subject) => {
        same(`cancel(${target})`, await subject.store.writes.cancel(ref(model, target), target), model.cancel(target));
      }),
    ),
    id.map((target) => command(`get(${target})`, (model, subject) => checkGet(model, subject, target))),
    fc.record({ slot: fc.nat(7), limit: fc.integer({ min: 0, max: 4 }), lease: fc.constantFrom(...LEASES), late: lateOption }).map(({ slot, limit, lease, late }) =>
      command(`claim(slot ${slot}, limit ${limit}, lease ${lease}${late ? `, late ${late.action} after ${late.afterMs}` : ''})`, async (model, subject) => {
        const result = await subject.store.deliveries.claim({ topic: TOPIC, slot }, limit, lease, MODEL_EXPIRY, late);
        const expected = model.claim(slot, limit, lease, result, late);
        same(`claim(slot ${slot})`, { ...result, claimed: result.claimed.map(({ scheduledAt: _s, ...rest }) => rest) }, expected);
      }),
    ),
    fc.record({ id, pick: fc.nat(3) }).map(({ id: target, pick }) =>
      command(`ack(${target}, token ${['current', 'older', 'newer', 'zero'][pick]})`, async (model, subject) => {
        const token = tokenOf(model, target, pick);
        const result = await followForwards<AckResult>(model, target, (slot) => subject.store.deliveries.ack(slot, target, token), (r) => (typeof r === 'object' ? r.forwardedTo : undefined));
        same(`ack(${target})`, result, model.ack(target, token));
      }),
    ),
    fc.record({ id, pick: fc.nat(3), lease: fc.constantFrom(...LEASES) }).map(({ id: target, pick, lease }) =>
      command(`renewLeases(${target}, token ${['current', 'older', 'newer', 'zero'][pick]}, lease ${lease})`, async (model, subject) => {
        const token = tokenOf(model, target, pick);
        const before = await subject.store.now();
        const result = await followForwards<RenewResult>(
          model,
          target,
          async (slot) => (await subject.store.deliveries.renewLeases(slot, [{ id: target, fencingToken: token, leaseMs: lease }]))[0]!,
          (r) => (typeof r === 'object' && 'forwardedTo' in r ? r.forwardedTo : undefined),
        );
        same(`renewLeases(${target})`, result, model.renew(target, token, lease, before, result));
      }),
    ),
    fc.record({ id, pick: fc.nat(3), delay: fc.constantFrom(0, 3_600_000), maxAttempts: fc.integer({ min: 1, max: 3 }) }).map(({ id: target, pick, delay, maxAttempts }) =>
      command(`fail(${target}, token ${pick}, retry in ${delay}, maxAttempts ${maxAttempts})`, async (model, subject) => {
        const token = tokenOf(model, target, pick);
        const failure = { error: `boom ${target}`, retryDelayMs: delay, maxAttempts };
        const result = await followForwards<FailOutcome>(model, target, (slot) => subject.store.deliveries.fail(slot, target, token, failure), (r) => (r.outcome === 'forwarded' ? r.slot : undefined));
        same(`fail(${target})`, result, model.fail(target, token, failure.error, delay, maxAttempts, result));
      }),
    ),
    fc.record({ id, pick: fc.nat(3) }).map(({ id: target, pick }) =>
      command(`release(${target}, token ${pick})`, async (model, subject) => {
        const token = tokenOf(model, target, pick);
        const result = await followForwards<ReleaseResult>(model, target, (slot) => subject.store.deliveries.release(slot, [{ id: target, fencingToken: token }]), (r) => r.forwarded[0]?.slot);
        const released = model.release(target, token);
        same(`release(${target})`, result, { released: released ? 1 : 0, forwarded: [] });
        if (released) await checkGet(model, subject, target, true);
      }),
    ),
    fc.option(id, { nil: undefined }).map((target) =>
      command(`replayDead(${target ?? 'all'})`, async (model, subject) => {
        const moved = model.replay(target === undefined ? undefined : [target]);
        let count = 0;
        if (target === undefined) for (let slot = 0; slot < model.slots; slot++) count += await subject.store.reads.replayDead({ topic: TOPIC, slot });
        else count = await subject.store.reads.replayDead(ref(model, target), [target]);
        same(`replayDead(${target ?? 'all'})`, count, moved.length);
        for (const replayed of moved) await checkGet(model, subject, replayed, true);
      }),
    ),
    fc.option(id, { nil: undefined }).map((target) =>
      command(`purgeDead(${target ?? 'all'})`, async (model, subject) => {
        let count = 0;
        if (target === undefined) for (let slot = 0; slot < model.slots; slot++) count += await subject.store.reads.purgeDead({ topic: TOPIC, slot });
        else count = await subject.store.reads.purgeDead(ref(model, target), [target]);
        same(`purgeDead(${target ?? 'all'})`, count, model.purge(target === undefined ? undefined : [target]));
      }),
    ),
    fc.nat(7).map((slot) =>
      command(`pause(slot ${slot})`, async (model, subject) => {
        const result = await subject.store.reads.pause({ topic: TOPIC, slot });
        same(`pause(slot ${slot})`, result, { now: result.now, pausedAt: model.pause(slot, result.now) });
        same(`pauseState(slot ${slot})`, (await subject.store.reads.pauseState({ topic: TOPIC, slot })).pausedAt, model.pausedAt.get(slot) ?? null);
        same(`stats(slot ${slot}).pausedAt`, (await subject.store.reads.stats({ topic: TOPIC, slot })).pausedAt, model.pausedAt.get(slot) ?? null);
      }),
    ),
    fc.record({ slot: fc.nat(7), shift: fc.boolean() }).map(({ slot, shift }) =>
      command(`resume(slot ${slot}${shift ? ', shift' : ''})`, async (model, subject) => {
        const result = await subject.store.reads.resume({ topic: TOPIC, slot }, shift);
        same(`resume(slot ${slot})`, result, model.resume(slot, shift, result.now));
        same(`stats(slot ${slot}).pausedAt after resume`, (await subject.store.reads.stats({ topic: TOPIC, slot })).pausedAt, model.pausedAt.get(slot) ?? null);
        for (const target of IDS) await checkGet(model, subject, target);
      }),
    ),
    fc.constantFrom(10, 40).map((ms) => command(`advance(${ms} ms)`, (_model, subject) => subject.advance(ms))),
    fc.constantFrom(...SLOT_COUNTS).map((slots) =>
      command(`migrateSlots(${slots})`, async (model, subject) => {
        const report = await migrateSlots(subject.store, TOPIC, slots);
        same('migrateSlots to', report.to, slots);
        model.migrate(slots);
        for (let slot = 0; slot < slots; slot++) {
          same(`pauseState(slot ${slot}) after migrateSlots`, (await subject.store.reads.pauseState({ topic: TOPIC, slot })).pausedAt, model.pausedAt.get(slot) ?? null);
        }
        const counts = { pending: 0, firing: 0, dead: 0 };
        for (let slot = 0; slot < 8; slot++) {
          const stats = await subject.store.reads.stats({ topic: TOPIC, slot });
          if (slot >= slots && stats.pending + stats.firing + stats.dead > 0) throw new Error(`slot ${slot} still holds timeouts after moving to ${slots} slots`);
          counts.pending += stats.pending;
          counts.firing += stats.firing;
          counts.dead += stats.dead;
        }
        same('counts after migrateSlots', counts, model.counts());
        for (const target of IDS) await checkGet(model, subject, target);
      }),
    ),
  ];
}
