import { describe, expect, it } from '@jest/globals';
import { parseArgs } from './monitor.js';

describe('parseArgs (the arguments of a MONITOR line)', () => {
  it('splits the quoted arguments and undoes MONITOR escapes', () => {
    expect(parseArgs('"evalsha" "ab12" "3" "dt:{payment:0}:due"')).toEqual(['evalsha', 'ab12', '3', 'dt:{payment:0}:due']);
    expect(parseArgs('"eval" "-- claim\\n-- Claims due ids\\nlocal a = \\"x\\\\y\\"" "0"')).toEqual(['eval', '-- claim\n-- Claims due ids\nlocal a = "x\\y"', '0']);
    expect(parseArgs('"set" "k" "\\x00\\xff\\t\\r"')).toEqual(['set', 'k', '\u0000\u00ff\t\r']);
  });

  it('gives nothing for a line without arguments', () => {
    expect(parseArgs('')).toEqual([]);
  });
});
