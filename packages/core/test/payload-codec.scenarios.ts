/// <reference types="jest" />
import { randomBytes } from 'node:crypto';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import type { DurableTimeoutsEvents, PayloadCodec, TopicOptions } from '../src/types.js';
import { PayloadDecodeError } from '../src/errors/payload-decode.error.js';
import { PayloadTooLargeError } from '../src/errors/payload-too-large.error.js';
import { aesGcmCodec } from '../src/support/aes-gcm-codec.js';
import { slotOf } from '../src/store/slot-of.js';

// The payload codec as users see it, on any store: the memory store runs these in the unit
// project, a real Redis in the e2e project. Payloads are encrypted before they reach the store,
// come back whole to the handler, and an entry that cannot be decoded is dead-lettered as
// `corrupt` without stopping the poller.

/** What one scenario gets from the store under test. */
export interface CodecScenarioContext {
  /** An engine on the shared store of this test (the same data for every engine it opens), silent. */
  engine(options: { codec?: PayloadCodec; topics?: Record<string, TopicOptions> }): DurableTimeouts;
  /** The stored text of a timeout's entry exactly as the store keeps it (Redis: the raw hash field). */
  rawEntry(topic: string, id: string): Promise<string>;
}

const SLOTS = 2;
const keyOne = randomBytes(32);
const keyTwo = randomBytes(32);
const secret = { card: '4111-1111-1111-1111', holder: 'Ada Lovelace', note: 'é ✓' };

/** Registers the scenarios; `context` is called in each test for a fresh store. */
export function describePayloadCodecScenarios(context: () => CodecScenarioContext): void {
  const codecOne = aesGcmCodec({ keys: { one: keyOne }, currentKeyId: 'one' });
  const codecTwo = aesGcmCodec({ keys: { one: keyOne, two: keyTwo }, currentKeyId: 'two' });
  const topics = { payment: { slots: SLOTS } };

  it('stores no plaintext, and hands the handler the original payload', async () => {
    const ctx = context();
    const timeouts = ctx.engine({ codec: codecOne, topics });
    const seen: unknown[] = [];
    timeouts.handle('payment', (event) => {
      seen.push(event.payload);
    });
    await timeouts.schedule('payment', 'order-1', { delayMs: 0, payload: secret });
    const raw = await ctx.rawEntry('payment', 'order-1');
    for (const word of ['4111', 'Ada', 'card', 'holder']) expect(raw).not.toContain(word);
    expect(raw).toContain('\u0002');
    expect(await timeouts.get('payment', 'order-1')).toMatchObject({ state: 'pending', payload: secret });
    await timeouts.fireDue();
    expect(seen).toEqual([secret]);
  });

  it('reads plain payloads written before the codec was configured, and a topic codec overrides the engine codec', async () => {
    const ctx = context();
    const plain = ctx.engine({ topics });
    await plain.schedule('payment', 'old', { delayMs: 0, payload: { n: 1 } });
    const reader = ctx.engine({ codec: { encode: () => { throw new Error('engine codec must not be used'); }, decode: (b) => b }, topics: { payment: { slots: SLOTS, codec: codecOne } } });
    await reader.schedule('payment', 'new', { delayMs: 0, payload: { n: 2 } });
    expect(await ctx.rawEntry('payment', 'new')).not.toContain('"n"');
    const seen: unknown[] = [];
    reader.handle('payment', (event) => {
      seen.push(event.payload);
    });
    await reader.fireDue();
    expect(seen.sort((a, b) => (a as { n: number }).n - (b as { n: number }).n)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('dead-letters as corrupt a payload under an unknown key id, names the problem, and keeps firing the others', async () => {
    const ctx = context();
    const writer = ctx.engine({ codec: codecTwo, topics });
    await writer.schedule('payment', 'under-two', { delayMs: 0, payload: secret });
    const reader = ctx.engine({ codec: codecOne, topics });
    await reader.schedule('payment', 'under-one', { delayMs: 0, payload: { ok: 1 } });
    const fired: string[] = [];
    const dead: DurableTimeoutsEvents['dead'][] = [];
    reader.on('dead', (event) => dead.push(event));
    reader.handle('payment', (event) => {
      fired.push(event.id);
    });
    await reader.fireDue();
    expect(fired).toEqual(['under-one']);
    expect(dead.map(({ id, reason }) => [id, reason])).toEqual([['under-two', 'corrupt']]);
    expect(dead[0]!.error.message).toMatch(/could not be decoded: .*key id "two", which is not among the keys/);
    expect(dead[0]!.error.message).not.toContain('4111');
    const [letter] = await reader.listDead('payment');
    expect(letter).toMatchObject({ id: 'under-two', payload: null, payloadError: expect.stringContaining('key id "two"') });
    await expect(reader.get('payment', 'under-two')).rejects.toThrow(PayloadDecodeError);
    // Still firing: a timeout scheduled after the bad one fires too.
    await reader.schedule('payment', 'later', { delayMs: 0, payload: null });
    await reader.fireDue();
    expect(fired).toEqual(['under-one', 'later']);
    // Once the key is back, the letter reads and replays.
    const healed = ctx.engine({ codec: codecTwo, topics });
    expect((await healed.listDead('payment'))[0]).toMatchObject({ id: 'under-two', payload: secret });
    expect(await healed.replayDead('payment', ['under-two'])).toBe(1);
    const replayed: unknown[] = [];
    healed.handle('payment', (event) => {
      replayed.push(event.payload);
    });
    await healed.fireDue();
    expect(replayed).toEqual([secret]);
  });

  it('dead-letters as corrupt an encoded payload when no codec is configured; get throws PayloadDecodeError naming the cause', async () => {
    const ctx = context();
    await ctx.engine({ codec: codecOne, topics }).schedule('payment', 'enc', { delayMs: 60_000, payload: secret });
    const bare = ctx.engine({ topics });
    const error = await bare.get('payment', 'enc').then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadDecodeError);
    expect((error as PayloadDecodeError).timeout).toMatchObject({ topic: 'payment', id: 'enc', state: 'pending' });
    expect((error as Error).message).toMatch(/timeout "enc" of topic "payment" could not be decoded: it was encoded by a codec, and this topic has none/);
    expect(await bare.listPending('payment')).toEqual([expect.objectContaining({ id: 'enc', payload: null, payloadError: expect.stringContaining('none configured') })]);
  });

  it('refuses a payload whose encoded form is over maxPayloadBytes', async () => {
    const ctx = context();
    const timeouts = ctx.engine({ codec: codecOne, topics: { payment: { slots: SLOTS, maxPayloadBytes: 64 } } });
    // 30 bytes of JSON, but over 64 once encrypted and in base64.
    const error = await timeouts.schedule('payment', 'big', { delayMs: 0, payload: 'x'.repeat(28) }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ encoded: true, limit: 64 });
    expect((error as Error).message).toMatch(/bytes once encoded by its codec, over its maxPayloadBytes 64/);
    expect(await timeouts.get('payment', 'big')).toBeNull();
  });
}

/** The slot of `id` in the scenarios' topics. */
export function scenarioSlot(id: string): number {
  return slotOf(id, SLOTS);
}
