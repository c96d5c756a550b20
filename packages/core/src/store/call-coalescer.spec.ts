import { describe, expect, it } from '@jest/globals';
import type { ScriptName } from '../commands/index.js';
import { CallCoalescer, groups, MAX_IDS_PER_CALL, type SlotCall } from './call-coalescer.js';
import type { ScriptArg } from './redis-replies.js';

const claim = (key: string, ids = 10): SlotCall => ({ kind: 'c', script: 'claim', keys: [key], args: [ids], ids });
const ack = (key: string, ids = 1): SlotCall => ({ kind: 'a', script: 'ackMany', keys: [key], args: [ids], ids });

/** A `run` that records each script call and answers it through `answer`. */
function recorder(answer: (name: ScriptName, keys: readonly string[]) => unknown) {
  const sent: { name: ScriptName; keys: readonly string[]; args: readonly ScriptArg[] }[] = [];
  const run = async (name: ScriptName, keys: readonly string[], args: readonly ScriptArg[]) => {
    sent.push({ name, keys, args });
    const reply = answer(name, keys);
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return { sent, run };
}

describe('CallCoalescer', () => {
  it('puts acks before claims and cuts the calls of one turn at the id bound', () => {
    const cut = groups([claim('c1', 600), ack('a1', 5), claim('c2', 600), ack('a2', 5)]);
    expect(cut.map((group) => group.map((call) => call.keys[0]))).toEqual([['a1', 'a2', 'c1'], ['c2']]);
    expect(groups([claim('big', MAX_IDS_PER_CALL + 1)])).toHaveLength(1);
  });

  it('sends the calls of one turn as one claimMany and answers each with its part', async () => {
    const { sent, run } = recorder((name, keys) => (name === 'claimMany' ? keys.map((key) => `reply of ${key}`) : 'alone'));
    const coalescer = new CallCoalescer(run);
    const replies = await Promise.all([coalescer.add(claim('k1')), coalescer.add(claim('k2'))]);
    expect(replies).toEqual(['reply of k1', 'reply of k2']);
    expect(sent.map((call) => call.name)).toEqual(['claimMany']);
    expect(sent[0]!.args.slice(0, 2)).toEqual([2, MAX_IDS_PER_CALL]);
  });

  it('after a CROSSSLOT refusal (a proxy in front of several shards) sends those calls and every later one alone', async () => {
    const crossSlot = Object.assign(new Error("CROSSSLOT Keys in request don't hash to the same slot"), { name: 'ReplyError' });
    const { sent, run } = recorder((name, keys) => (name === 'claimMany' ? crossSlot : `alone ${keys[0]}`));
    const coalescer = new CallCoalescer(run);
    expect(await Promise.all([coalescer.add(claim('k1')), coalescer.add(claim('k2'))])).toEqual(['alone k1', 'alone k2']);
    expect(await Promise.all([coalescer.add(claim('k3')), coalescer.add(claim('k4'))])).toEqual(['alone k3', 'alone k4']);
    expect(sent.map((call) => call.name)).toEqual(['claimMany', 'claim', 'claim', 'claim', 'claim']);
  });

  it('fails every part of a call that failed as a whole with another error', async () => {
    const down = new Error('connection lost');
    const { run } = recorder(() => down);
    const coalescer = new CallCoalescer(run);
    const settled = await Promise.allSettled([coalescer.add(claim('k1')), coalescer.add(ack('k2'))]);
    expect(settled.map((result) => (result.status === 'rejected' ? result.reason : result.value))).toEqual([down, down]);
  });
});
