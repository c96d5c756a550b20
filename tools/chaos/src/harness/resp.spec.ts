import { describe, expect, it } from '@jest/globals';
import { parseCommand, respArrayLength, respValueEnd } from './resp.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('respValueEnd', () => {
  it('finds the end of simple, bulk and nested values', () => {
    expect(respValueEnd(bytes('+OK\r\n'), 0)).toBe(5);
    expect(respValueEnd(bytes(':42\r\n+OK\r\n'), 5)).toBe(10);
    expect(respValueEnd(bytes('$3\r\nabc\r\n'), 0)).toBe(9);
    expect(respValueEnd(bytes('$-1\r\n'), 0)).toBe(5);
    expect(respValueEnd(bytes('*2\r\n:1\r\n*1\r\n$1\r\nx\r\n'), 0)).toBe(19);
  });

  it('says incomplete until the last byte arrived', () => {
    const whole = bytes('*2\r\n$5\r\nhello\r\n:7\r\n');
    for (let cut = 1; cut < whole.length; cut += 1) expect(respValueEnd(whole.subarray(0, cut), 0)).toBe(-1);
    expect(respValueEnd(whole, 0)).toBe(whole.length);
  });

  it('does not mistake CRLF inside a bulk string for the end', () => {
    expect(respValueEnd(bytes('$4\r\na\r\nb\r\n'), 0)).toBe(10);
  });

  it('rejects bytes that are not RESP', () => {
    expect(() => respValueEnd(bytes('hello\r\n'), 0)).toThrow(/Not a RESP value/);
  });
});

describe('parseCommand', () => {
  it('reads the arguments of pipelined commands one after the other', () => {
    const pipeline = bytes('*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n');
    const first = parseCommand(pipeline, 0)!;
    expect(first.args).toEqual(['GET', 'k']);
    const second = parseCommand(pipeline, first.end)!;
    expect(second.args).toEqual(['PING']);
    expect(second.end).toBe(pipeline.length);
  });

  it('returns null for a partial command', () => {
    expect(parseCommand(bytes('*2\r\n$3\r\nGET\r\n$1\r'), 0)).toBeNull();
  });
});

describe('respArrayLength', () => {
  it('reads the element count of an array reply, -1 for anything else', () => {
    expect(respArrayLength(bytes('*9\r\n:1\r\n'))).toBe(9);
    expect(respArrayLength(bytes(':1\r\n'))).toBe(-1);
  });
});
