import { describe, expect, it } from '@jest/globals';
import { HarnessError } from '@durable-timeout/redis-testing';
import { DEFAULT_OPTIONS, parseDemoOptions } from './demo-options.js';

describe('parseDemoOptions', () => {
  it('uses the defaults without flags', () => {
    expect(parseDemoOptions([])).toEqual({ ...DEFAULT_OPTIONS, jsonFile: undefined, help: false });
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    expect(parseDemoOptions(['--orders', '40', '--timeout-ms=2500', '--json', 'out/figures.json'])).toEqual({
      orders: 40,
      timeoutMs: 2500,
      jsonFile: 'out/figures.json',
      help: false,
    });
    expect(parseDemoOptions(['-h']).help).toBe(true);
  });

  it.each([
    [['--orders', 'many']],
    [['--orders', '4.5']],
    [['--orders', '9']],
    [['--orders', '5001']],
    [['--timeout-ms', '1999']],
    [['--timeout-ms', '-3000']],
    [['--json', '']],
    [['--unknown']],
    [['positional']],
  ])('rejects %j with a usage HarnessError', (argv) => {
    expect(() => parseDemoOptions(argv)).toThrow(HarnessError);
  });

  it('names the flag and its range in the message', () => {
    expect(() => parseDemoOptions(['--orders', '0'])).toThrow(/--orders takes a whole number between 10 and 5000; got "0"/);
  });
});
