import { describe, expect, it } from '@jest/globals';
import { parseOptions } from './cli-options.js';

const known = ['baseline', 'poison', 'scale'];

describe('parseOptions', () => {
  it('defaults to the full run of every scenario, no JSON', () => {
    expect(parseOptions([], known)).toEqual({ quick: false, only: [], jsonFile: undefined, model: false });
  });

  it('reads --quick, --model, --only (comma list, repeatable, = form) and --json', () => {
    expect(parseOptions(['--quick', '--model', '--only', 'baseline, poison', '--only=scale', '--json', 'out.json'], known)).toEqual({
      quick: true,
      only: ['baseline', 'poison', 'scale'],
      jsonFile: 'out.json',
      model: true,
    });
  });

  it('refuses an unknown scenario, naming the known ones', () => {
    expect(() => parseOptions(['--only', 'nope'], known)).toThrow(/Unknown scenario nope; pick among: baseline, poison, scale/);
  });

  it('refuses an unknown flag and a flag without its value', () => {
    expect(() => parseOptions(['--fast'], known)).toThrow(/Unknown argument --fast/);
    expect(() => parseOptions(['--json'], known)).toThrow(/--json needs a value/);
  });
});
