import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { slotOf } from '../src/store/slot-of.js';
import { uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

// Corruption fuzz: stored entries damaged at random (truncated, separators swapped, meta fields
// replaced by words or by huge numbers, the payload replaced by text that is not JSON, emptied,
// deleted, or replaced by arbitrary text) between schedule and fire. Whatever the damage, the slot
// keeps firing, no claim fails, every healthy timeout fires once, and every damaged one ends in the
// dead letters with an error naming the problem. A failure prints its seed and shrunk case.

let server: RedisServer;
let raw: Redis;
const rig = engineSuite(() => RedisServer.start(), (started) => {
  server = started;
  raw = started.client();
});

/** One way to damage a stored value; `null` deletes it. */
type Damage = (value: string) => string | null;

const bar = (value: string) => Math.max(0, value.indexOf('|'));
const damage: fc.Arbitrary<[string, Damage]> = fc.oneof(
  fc.nat().map((at): [string, Damage] => [`truncated at ${at}`, (value) => value.slice(0, at % Math.max(1, value.length))]),
  fc.constantFrom<[string, Damage]>(
    ['bar swapped', (value) => value.replace('|', ';')],
    ['comma for bar', (value) => value.replace('|', ',')],
    ['empty', () => ''],
    ['deleted', () => null],
    ['payload not JSON', (value) => `${value.slice(0, bar(value))}|{not json`],
    ['extra meta field', (value) => `${value.slice(0, bar(value))},1,2,3,4,5${value.slice(bar(value))}`],
  ),
  fc.string({ minLength: 1, maxLength: 12 }).map((word): [string, Damage] => [`meta "${word}"`, (value) => `${word}${value.slice(bar(value))}`]),
  fc.integer({ min: 17, max: 40 }).map((digits): [string, Damage] => [`${digits}-digit number`, (value) => `${'9'.repeat(digits)}${value.slice(bar(value))}`]),
  fc.string({ maxLength: 40 }).map((text): [string, Damage] => [`replaced by ${JSON.stringify(text)}`, () => text]),
);

describe('damaged stored entries, at random', () => {
  it('never stop a slot or fail a claim, and always end in the dead letters with the problem named', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 6 }), async (damages, healthy) => {
        const prefix = uniquePrefix();
        const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 2 } } });
        const fired: string[] = [];
        const errors: string[] = [];
        timeouts.handle('payment', (event) => {
          fired.push(event.id);
        });
        timeouts.on('error', ({ operation, error }) => errors.push(`${operation}: ${error.message}`));
        const damagedIds = damages.map((_, i) => `bad-${i}`);
        const healthyIds = Array.from({ length: healthy }, (_, i) => `ok-${i}`);
        for (const id of [...damagedIds, ...healthyIds]) await timeouts.schedule('payment', id, { delayMs: 0, payload: { id, note: 'x' } });
        const store = timeouts.store as RedisTimeoutStore;
        for (const [i, [, spoil]] of damages.entries()) {
          const id = damagedIds[i]!;
          const key = store.keys.dataKey('payment', slotOf(id, 2), id);
          const spoilt = spoil((await raw.hget(key, id)) ?? '');
          if (spoilt === null) await raw.hdel(key, id);
          else await raw.hset(key, id, spoilt);
        }
        await timeouts.fireDue();
        await timeouts.fireDue();
        const dead = await timeouts.listDead('payment');
        const stats = await timeouts.stats('payment');
        await timeouts.stop();
        // A truncation or swap may leave a readable entry (cutting nothing off): it fires like a healthy one.
        const readable = damagedIds.filter((id) => fired.includes(id));
        expect(errors).toEqual([]);
        expect(fired.filter((id) => id.startsWith('ok-')).sort()).toEqual(healthyIds.sort());
        expect(new Set(fired).size).toBe(fired.length);
        expect(stats).toMatchObject({ pending: 0, firing: 0, dead: damagedIds.length - readable.length });
        for (const id of damagedIds.filter((damaged) => !readable.includes(damaged))) {
          const letter = dead.find((entry) => entry.id === id);
          expect([id, letter?.lastError]).toEqual([id, expect.stringMatching(/corrupt stored entry|missing stored entry|not valid JSON/)]);
        }
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
