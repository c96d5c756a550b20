import { describe, expect, it } from '@jest/globals';
import { EventHub } from './event-hub.js';

interface Events {
  ping: { n: number };
  error: { error: Error };
}

describe('EventHub', () => {
  it('delivers to listeners until they unsubscribe, and reports a listener that throws', () => {
    const thrown: unknown[] = [];
    const hub = new EventHub<Events>((_event, error) => thrown.push(error));
    const seen: number[] = [];
    expect(hub.has('ping')).toBe(false);
    const off = hub.on('ping', ({ n }) => seen.push(n));
    hub.on('ping', () => {
      throw new Error('listener bug');
    });
    expect(hub.has('ping')).toBe(true);
    hub.emit('ping', { n: 1 });
    off();
    hub.emit('ping', { n: 2 });
    expect(seen).toEqual([1]);
    expect(thrown).toHaveLength(2);
  });

  it('does not throw on an error event without listeners', () => {
    const hub = new EventHub<Events>(() => undefined);
    expect(() => hub.emit('error', { error: new Error('x') })).not.toThrow();
  });
});
