import { describe, expect, it } from '@jest/globals';
import { parseCancelNotice } from './redis-wake-ups.js';

describe('parseCancelNotice', () => {
  it('reads the fencing token and the id, colons in the id included', () => {
    expect(parseCancelNotice('cancel:1843200000000001:order-1')).toEqual({ id: 'order-1', fencingToken: 1843200000000001 });
    expect(parseCancelNotice('cancel:7:a:b:c')).toEqual({ id: 'a:b:c', fencingToken: 7 });
    expect(parseCancelNotice('cancel:7:ü ✓')).toEqual({ id: 'ü ✓', fencingToken: 7 });
  });

  it('refuses what is not a cancel notice, so wake-ups and layout notices keep their meaning', () => {
    for (const message of ['3:1700000000000', 'layout', 'cancel:', 'cancel:7', 'cancel:7:', 'cancel::id', 'cancel:0:id', 'cancel:-1:id', 'cancel:1e3:id', 'cancel:99999999999999999:id']) {
      expect(parseCancelNotice(message)).toBeUndefined();
    }
  });

  it('is a message that instances reading only "<slot>:<dueAt>" ignore: its head is no slot number', () => {
    // How a wake-up is read (and was before cancel notices existed): a whole slot number before the first colon.
    const slot = Number('cancel:7:order-1'.slice(0, 'cancel:7:order-1'.indexOf(':')));
    expect(Number.isInteger(slot)).toBe(false);
  });
});
