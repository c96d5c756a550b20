import { describe, expect, it } from '@jest/globals';
import { MAX_CARRIED_LENGTH, splitCarried, withCarried } from './carried-context.js';

describe('carried text in front of a stored payload', () => {
  it('travels in front of the payload and comes back apart', () => {
    const stored = withCarried('{"amount":42}', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(stored.startsWith('\u0001')).toBe(true);
    expect(splitCarried(stored)).toEqual({ carried: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', payload: '{"amount":42}' });
  });

  it('leaves a payload alone when there is nothing valid to carry, and reads plain payloads as they are', () => {
    for (const carried of [undefined, '', 'x'.repeat(MAX_CARRIED_LENGTH + 1), 'a\u0001b']) expect(withCarried('null', carried)).toBe('null');
    expect(splitCarried('{"a":"\\u0001"}')).toEqual({ carried: undefined, payload: '{"a":"\\u0001"}' });
    expect(splitCarried('\u0001unterminated')).toEqual({ carried: undefined, payload: '\u0001unterminated' });
  });
});
