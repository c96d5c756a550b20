import { describe, expect, it } from '@jest/globals';
import { TimeoutKeys } from './timeout-keys.js';
import { DATA_BUCKETS, bucketOf } from './slot-of.js';

describe('TimeoutKeys', () => {
  const keys = new TimeoutKeys('dt');

  it('puts every key of a slot under the slot hash tag', () => {
    const slot = keys.slot('payment', 3);
    expect(slot).toMatchObject({
      due: 'dt:{payment:3}:due',
      lease: 'dt:{payment:3}:lease',
      dead: 'dt:{payment:3}:dead',
      seq: 'dt:{payment:3}:seq',
      layout: 'dt:{payment:3}:layout',
      fwd: 'dt:{payment:3}:fwd',
    });
    expect(slot.buckets).toHaveLength(DATA_BUCKETS);
    expect(slot.buckets[0]).toBe('dt:{payment:3}:d:0');
    for (const key of [slot.due, slot.lease, slot.dead, slot.seq, slot.layout, slot.fwd, ...slot.buckets]) {
      expect(key.slice(key.indexOf('{'), key.indexOf('}') + 1)).toBe(keys.hashTag('payment', 3));
    }
  });

  it('keeps the registry of topic layouts in one key of the prefix', () => {
    expect(keys.topics).toBe('dt:topics');
  });

  it('never puts an id into a key name', () => {
    const id = '{evil}:id';
    const key = keys.dataKey('payment', 3, id);
    expect(key).not.toContain('evil');
    expect(key).toBe(`dt:{payment:3}:d:${bucketOf(id)}`);
  });

  it('keeps topics and slots apart and memoises', () => {
    expect(keys.slot('payment', 3)).toBe(keys.slot('payment', 3));
    expect(keys.slot('payment', 4).due).not.toBe(keys.slot('payment', 3).due);
    expect(new TimeoutKeys('other').slot('payment', 3).due).toBe('other:{payment:3}:due');
  });

  it('names one wake channel per topic and reads it back', () => {
    expect(keys.wakeChannel('payment')).toBe('dt:wake:payment');
    expect(keys.topicOfChannel('dt:wake:payment')).toBe('payment');
    expect(keys.topicOfChannel('other:wake:payment')).toBeUndefined();
  });
});
