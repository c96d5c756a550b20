import { describe, expect, it } from '@jest/globals';
import { parseBenchArgs } from './cli-options.js';
import { HarnessError } from '@durable-timeout/redis-testing';

describe('parseBenchArgs', () => {
  it('defaults to the full run without files', () => {
    expect(parseBenchArgs([])).toEqual({ quick: false, jsonFile: undefined, markdownFile: undefined, svgDir: undefined, profileDir: undefined, only: [], help: false });
  });

  it('reads every flag, with a separate or an inline value', () => {
    const options = parseBenchArgs(['--quick', '--json', 'out.json', '--markdown=out.md', '--svg', 'charts', '--profile', 'prof', '--only', 'engine, bullmq']);
    expect(options).toEqual({ quick: true, jsonFile: 'out.json', markdownFile: 'out.md', svgDir: 'charts', profileDir: 'prof', only: ['engine', 'bullmq'], help: false });
  });

  it('refuses an unknown flag and a missing value', () => {
    expect(() => parseBenchArgs(['--fast'])).toThrow(HarnessError);
    expect(() => parseBenchArgs(['--fast'])).toThrow(/Unknown argument --fast/);
    expect(() => parseBenchArgs(['--json'])).toThrow(/--json needs a value/);
    expect(() => parseBenchArgs(['--json', '--quick'])).toThrow(/--json needs a value/);
  });
});
