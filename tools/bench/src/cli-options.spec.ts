import { describe, expect, it } from '@jest/globals';
import { parseBenchArgs, USAGE } from './cli-options.js';
import { HarnessError } from '@durable-timeout/redis-testing';

describe('parseBenchArgs', () => {
  it('defaults to the full run without files', () => {
    expect(parseBenchArgs([])).toEqual({ quick: false, jsonFile: undefined, markdownFile: undefined, svgDir: undefined, profileDir: undefined, soakMinutes: undefined, only: [], help: false });
  });

  it('reads every flag, with a separate or an inline value', () => {
    const options = parseBenchArgs(['--quick', '--json', 'out.json', '--markdown=out.md', '--svg', 'charts', '--profile', 'prof', '--only', 'engine, bullmq']);
    expect(options).toEqual({ quick: true, jsonFile: 'out.json', markdownFile: 'out.md', svgDir: 'charts', profileDir: 'prof', soakMinutes: undefined, only: ['engine', 'bullmq'], help: false });
  });

  it('refuses an unknown flag and a missing value', () => {
    expect(() => parseBenchArgs(['--fast'])).toThrow(HarnessError);
    expect(() => parseBenchArgs(['--fast'])).toThrow(/Unknown argument --fast/);
    expect(() => parseBenchArgs(['--json'])).toThrow(/--json needs a value/);
    expect(() => parseBenchArgs(['--json', '--quick'])).toThrow(/--json needs a value/);
  });

  it('reads --soak MINUTES, a whole number of minutes from 1 to a day', () => {
    expect(parseBenchArgs(['--soak', '30']).soakMinutes).toBe(30);
    expect(parseBenchArgs(['--soak=2', '--json', 'soak.json', '--only', 'engine']).soakMinutes).toBe(2);
    for (const bad of ['0', '1.5', '-3', 'ten', '1441']) expect(() => parseBenchArgs(['--soak', bad])).toThrow(/--soak takes a whole number of minutes/);
    expect(() => parseBenchArgs(['--soak'])).toThrow(/--soak needs a value/);
  });

  it('soaks durable-timeout and BullMQ only', () => {
    expect(parseBenchArgs(['--soak', '5', '--only', 'bullmq']).only).toEqual(['bullmq']);
    expect(() => parseBenchArgs(['--soak', '5', '--only', 'engine,polling'])).toThrow(/not polling/);
    expect(parseBenchArgs(['--only', 'polling']).only).toEqual(['polling']);
  });

  it('says the soak and its mix in the help', () => {
    expect(USAGE).toContain('--soak MINUTES');
    expect(USAGE).toMatch(/6 are paid .*1 is moved .*3 fire/s);
  });
});
