import { describe, expect, it } from '@jest/globals';
import { renderMarkdownTable } from './table.js';
import { CPU_PAYLOAD_BYTES, masterFigure, payloadOf, phaseFigure, renderRedisCpu, serverSnapshot, snapshotDelta, snapshotSum } from './redis-cpu-figures.js';

const cpu = (user: number, sys: number): string => `# CPU\r\nused_cpu_sys:${sys}\r\nused_cpu_user:${user}\r\nused_cpu_sys_children:9.000000\r\n`;
const commandstats = (evalshaCalls: number, evalshaUsec: number): string =>
  [
    '# Commandstats',
    `cmdstat_evalsha:calls=${evalshaCalls},usec=${evalshaUsec},usec_per_call=1.00,rejected_calls=0,failed_calls=0`,
    'cmdstat_eval:calls=2,usec=40,usec_per_call=20.00,rejected_calls=0,failed_calls=0',
    'cmdstat_zadd:calls=500,usec=900,usec_per_call=1.80,rejected_calls=0,failed_calls=0',
    '',
  ].join('\r\n');
const stats = (input: number, output: number): string => `# Stats\r\ntotal_net_input_bytes:${input}\r\ntotal_net_output_bytes:${output}\r\n`;

describe('Redis CPU figures', () => {
  it('takes user + sys CPU (not the children), script time and calls, and bytes from INFO', () => {
    const snapshot = serverSnapshot(cpu(1.5, 0.25), commandstats(10, 1_000), stats(100, 200));
    expect(snapshot.cpuSeconds).toBeCloseTo(1.75, 9);
    // Nested commands (zadd here) are already inside the script's time: not added again.
    expect(snapshot.scriptUsec).toBe(1_040);
    expect(snapshot.scriptCalls).toBe(12);
    expect([snapshot.netInBytes, snapshot.netOutBytes]).toEqual([100, 200]);
  });

  it('divides what the server spent over a phase by its operations', () => {
    const before = serverSnapshot(cpu(1, 1), commandstats(10, 1_000), stats(1_000, 5_000));
    const after = serverSnapshot(cpu(1.6, 1.4), commandstats(60, 601_000), stats(3_001_000, 1_005_000));
    const figure = phaseFigure('schedule', 10_000, snapshotDelta(before, after), { userUs: 300_000, systemUs: 100_000, elapsedMs: 2_000 });
    expect(figure.serverCpuUs).toBeCloseTo(100, 6); // 1 s over 10,000 ops
    expect(figure.scriptUs).toBeCloseTo(60, 6);
    expect(figure.scriptCallsPerOp).toBeCloseTo(0.005, 9);
    expect([figure.netInBytes, figure.netOutBytes]).toEqual([300, 100]);
    expect(figure.clientCpuUs).toBeCloseTo(40, 6);
    expect(figure.opsPerSec).toBeCloseTo(5_000, 6);
    expect(figure.opsPerRedisCore).toBeCloseTo(10_000, 6);
  });

  it('refuses a phase without operations rather than dividing by zero', () => {
    const nothing = { cpuSeconds: 0, scriptUsec: 0, scriptCalls: 0, netInBytes: 0, netOutBytes: 0 };
    expect(() => phaseFigure('fire', 0, nothing, { userUs: 0, systemUs: 0, elapsedMs: 1 })).toThrow(/did no operation/);
  });

  it('derives a master’s fires per second at one core from its CPU per fire, and sums masters', () => {
    const master = masterFigure('master 1', 30_000, { cpuSeconds: 0.6, scriptUsec: 0, scriptCalls: 0, netInBytes: 6_000_000, netOutBytes: 3_000_000 });
    expect(master.cpuUsPerFire).toBeCloseTo(20, 6);
    expect(master.netBytesPerFire).toBe(300);
    expect(master.firesPerCore).toBeCloseTo(50_000, 6);
    expect(Number.isNaN(masterFigure('master 2', 0, { cpuSeconds: 0.1, scriptUsec: 0, scriptCalls: 0, netInBytes: 0, netOutBytes: 0 }).firesPerCore)).toBe(true);
    const sum = snapshotSum([
      { cpuSeconds: 1, scriptUsec: 2, scriptCalls: 3, netInBytes: 4, netOutBytes: 5 },
      { cpuSeconds: 0.5, scriptUsec: 1, scriptCalls: 1, netInBytes: 1, netOutBytes: 1 },
    ]);
    expect(sum).toEqual({ cpuSeconds: 1.5, scriptUsec: 3, scriptCalls: 4, netInBytes: 5, netOutBytes: 6 });
  });

  it('renders both tables, marking the per-core rates as derived', () => {
    const figure = phaseFigure('cancel', 2, { cpuSeconds: 0.0001, scriptUsec: 60, scriptCalls: 2, netInBytes: 400, netOutBytes: 20 }, { userUs: 10, systemUs: 10, elapsedMs: 1 });
    const text = renderRedisCpu({
      single: [figure],
      cluster: [{
        name: 'steady',
        masters: [masterFigure('master 1', 1_000, { cpuSeconds: 0.02, scriptUsec: 0, scriptCalls: 0, netInBytes: 250_000, netOutBytes: 250_000 })],
        clients: 2,
        fires: 1_000,
        firesPerSec: 12_345,
        clientCpuUsPerFire: 80,
      }],
    }, renderMarkdownTable);
    expect(text).toContain('| cancel | 2 | 50.0 | 30.0 | 1.000 | 200 | 10 | 10.0 | 2,000 | 20,000 |');
    expect(text).toContain('| master 1 | 1,000 | 0.02 | 20.0 | 500 | 50,000 |');
    expect(text).toContain('steady, 2 firing processes: 1,000 fires at 12,345/s');
    expect(text).toMatch(/per Redis core \(derived\)/);
  });

  it('gives every payload the same JSON size', () => {
    for (const index of [0, 7, 12_345, 99_999_999]) expect(JSON.stringify(payloadOf(index)).length).toBe(CPU_PAYLOAD_BYTES);
  });
});
