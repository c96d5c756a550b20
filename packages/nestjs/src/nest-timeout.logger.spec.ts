import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { NestTimeoutLogger, formatLogLine } from './nest-timeout.logger.js';

afterEach(() => {
  jest.restoreAllMocks();
});

describe('formatLogLine', () => {
  it('appends topic, id and attempt as key=value pairs', () => {
    expect(formatLogLine('handler failed', { topic: 'payment', id: 'order-1', attempt: 2 })).toBe(
      'handler failed topic=payment id=order-1 attempt=2',
    );
  });

  it('never writes a payload, and shows only the shape of objects', () => {
    const line = formatLogLine('fired', { topic: 'payment', payload: { card: '4111' }, extra: { secret: 's' }, list: [1, 2] });
    expect(line).toBe('fired topic=payment extra=[object] list=[2 items]');
    expect(line).not.toContain('4111');
    expect(line).not.toContain('secret');
  });

  it('quotes values with spaces, shows error messages, drops undefined', () => {
    expect(formatLogLine('x', { id: 'a b', error: new Error('boom'), missing: undefined, none: null })).toBe(
      'x id="a b" error="boom" none=null',
    );
    expect(formatLogLine('plain')).toBe('plain');
  });
});

describe('NestTimeoutLogger', () => {
  it('writes each level through Nest Logger, with the stack of an error', () => {
    const nest = new Logger('test');
    const calls: string[] = [];
    for (const level of ['debug', 'log', 'warn', 'error'] as const) {
      jest.spyOn(nest, level).mockImplementation((...args: unknown[]) => {
        calls.push(`${level}:${args.map(String).join('|').split('\n')[0]}`);
      });
    }
    const logger = new NestTimeoutLogger(nest);
    logger.debug('d', { id: '1' });
    logger.log('l');
    logger.warn('w', { topic: 't' });
    logger.error('e', { error: new Error('bad') });
    logger.error('e2');
    expect(calls).toEqual(['debug:d id=1', 'log:l', 'warn:w topic=t', 'error:e error="bad"|Error: bad', 'error:e2']);
  });
});
