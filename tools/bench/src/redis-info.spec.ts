import { describe, expect, it } from '@jest/globals';
import { HarnessError } from '@durable-timeout/redis-testing';
import { commandCalls, commandMixBetween, commandsBetween, describeMix, networkBytes, parseInfo, usedCpuSeconds, usedMemory } from './redis-info.js';

const memory = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n\r\n';
const stats = [
  '# Commandstats',
  'cmdstat_evalsha:calls=10,usec=500,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
  'cmdstat_zadd:calls=7,usec=20,usec_per_call=2.86,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0',
  'cmdstat_config|resetstat:calls=1,usec=90,usec_per_call=90.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

describe('INFO parsing', () => {
  it('reads fields and skips headers', () => {
    const fields = parseInfo(memory);
    expect(fields.get('used_memory_human')).toBe('1.00M');
    expect(fields.has('# Memory')).toBe(false);
    expect(usedMemory(memory)).toBe(1_048_576);
  });

  it('refuses a reply without used_memory', () => {
    expect(() => usedMemory('# Server\r\nredis_version:7.0.0\r\n')).toThrow(HarnessError);
    expect(() => usedMemory('# Server\r\nredis_version:7.0.0\r\n')).toThrow(/used_memory/);
  });

  it('reads calls per command, subcommands included', () => {
    const calls = commandCalls(stats);
    expect(calls.get('evalsha')).toBe(10);
    expect(calls.get('config|resetstat')).toBe(1);
    expect(calls.size).toBe(4);
  });

  it('counts the commands between two snapshots without the harness commands', () => {
    const before = commandCalls(stats);
    const after = new Map(before);
    after.set('evalsha', 25);
    after.set('zadd', 7);
    after.set('info', 9);
    after.set('hset', 4);
    expect(commandsBetween(before, after)).toBe(15 + 4);
  });

  it('describes the busiest commands per timeout', () => {
    const before = commandCalls(stats);
    const after = new Map([...before, ['evalsha', 30], ['hget', 15], ['info', 50]]);
    const mix = commandMixBetween(before, after);
    expect([...mix]).toEqual([['evalsha', 20], ['hget', 15]]);
    expect(describeMix(mix, 10)).toBe('evalsha 2.00, hget 1.50');
  });

  it('reads the CPU seconds Redis used', () => {
    expect(usedCpuSeconds('# CPU\r\nused_cpu_sys:1.25\r\nused_cpu_user:2.5\r\n')).toBeCloseTo(3.75);
    expect(() => usedCpuSeconds('# CPU\r\n')).toThrow(/used_cpu_user/);
  });

  it('reads the bytes Redis exchanged with its clients', () => {
    expect(networkBytes('# Stats\r\ntotal_net_input_bytes:100\r\ntotal_net_output_bytes:250\r\n')).toEqual({ input: 100, output: 250 });
    expect(() => networkBytes('# Stats\r\n')).toThrow(/total_net_input_bytes/);
  });
});
