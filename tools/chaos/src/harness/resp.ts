import { chaosMessages } from '../chaos.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

/**
 * Just enough of the Redis protocol (RESP2 and the RESP3 aggregate types) for the lost-reply proxy:
 * where one value ends in a byte buffer, and the arguments of a client command.
 */

const CRLF = 0x0d;

function lineEnd(buffer: Buffer, offset: number): number {
  for (let i = offset; i < buffer.length - 1; i += 1) {
    if (buffer[i] === CRLF && buffer[i + 1] === 0x0a) return i;
  }
  return -1;
}

/**
 * Offset just past the first complete RESP value that starts at `offset`, or -1 when the buffer
 * does not hold all of it yet.
 */
export function respValueEnd(buffer: Buffer, offset: number): number {
  if (offset >= buffer.length) return -1;
  const type = String.fromCharCode(buffer[offset]!);
  const eol = lineEnd(buffer, offset + 1);
  if (eol < 0) return -1;
  const afterLine = eol + 2;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return afterLine;
    case '$':
    case '=':
    case '!': {
      const length = Number(buffer.toString('latin1', offset + 1, eol));
      if (length < 0) return afterLine;
      const end = afterLine + length + 2;
      return end <= buffer.length ? end : -1;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const count = Number(buffer.toString('latin1', offset + 1, eol));
      const items = type === '%' || type === '|' ? count * 2 : count;
      let cursor = afterLine;
      for (let i = 0; i < items; i += 1) {
        cursor = respValueEnd(buffer, cursor);
        if (cursor < 0) return -1;
      }
      return cursor;
    }
    default:
      throw new HarnessError('process', chaosMessages.notResp(offset, type));
  }
}

/** One client command read from a buffer: its arguments (latin1 text) and where it ends. */
export interface ParsedCommand {
  args: string[];
  end: number;
}

/**
 * Reads the command (an array of bulk strings, as every client library sends) at `offset`, or
 * returns null when it is not complete yet.
 */
export function parseCommand(buffer: Buffer, offset: number): ParsedCommand | null {
  const end = respValueEnd(buffer, offset);
  if (end < 0) return null;
  if (buffer[offset] !== 0x2a) throw new HarnessError('process', chaosMessages.notCommandArray(offset));
  const eol = lineEnd(buffer, offset + 1);
  const count = Number(buffer.toString('latin1', offset + 1, eol));
  const args: string[] = [];
  let cursor = eol + 2;
  for (let i = 0; i < count; i += 1) {
    const lengthEnd = lineEnd(buffer, cursor + 1);
    const length = Number(buffer.toString('latin1', cursor + 1, lengthEnd));
    const start = lengthEnd + 2;
    args.push(buffer.toString('latin1', start, start + length));
    cursor = start + length + 2;
  }
  return { args, end };
}

/** Number of elements of the RESP array at the start of `reply`, or -1 when it is not an array. */
export function respArrayLength(reply: Buffer): number {
  if (reply[0] !== 0x2a) return -1;
  const eol = lineEnd(reply, 1);
  return eol < 0 ? -1 : Number(reply.toString('latin1', 1, eol));
}
