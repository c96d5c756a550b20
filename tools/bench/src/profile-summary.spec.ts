import { describe, expect, it } from '@jest/globals';
import { areaOf, renderProfileSummary, summarizeProfile, type CpuProfile } from './profile-summary.js';

const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 9 } });

const profile: CpuProfile = {
  nodes: [
    frame(1, '(idle)', ''),
    frame(2, 'claim', 'file:///repo/packages/core/dist/engine/slot-poller.js'),
    frame(3, 'parse', 'file:///repo/node_modules/ioredis/built/Parser.js'),
    frame(4, '(garbage collector)', ''),
    frame(5, 'writeGeneric', 'node:internal/stream_base_commons'),
  ],
  // each sample is charged the delta after it; the last sample has none
  samples: [1, 2, 3, 2, 4, 5],
  timeDeltas: [0, 1000, 100, 200, 300, 50],
};

describe('areaOf', () => {
  it('sorts frames by where their script lives', () => {
    expect(areaOf('(idle)', '')).toBe('idle');
    expect(areaOf('(program)', '')).toBe('program');
    expect(areaOf('x', 'node:net')).toBe('node internals');
    expect(areaOf('x', 'file:///a/node_modules/ioredis/built/Redis.js')).toBe('ioredis');
    expect(areaOf('x', 'file:///a/packages/core/dist/x.js')).toBe('engine');
    expect(areaOf('x', 'file:///a/tools/bench/dist/worker.js')).toBe('bench harness');
    expect(areaOf('x', 'file:///a/node_modules/bullmq/dist/x.js')).toBe('other code');
  });
});

describe('summarizeProfile', () => {
  it('charges self time per function and area, leaving idle out', () => {
    const summary = summarizeProfile(profile);
    expect(summary.busyUs).toBe(100 + 200 + 300 + 50);
    expect(summary.byArea.map((e) => [e.name, e.selfUs])).toEqual([
      ['engine', 400],
      ['ioredis', 200],
      ['gc', 50],
      ['node internals', 0],
    ]);
    expect(summary.topFunctions[0]).toEqual({ name: 'claim packages/core/dist/engine/slot-poller.js:10', area: 'engine', selfUs: 400 });
  });

  it('renders microseconds per fired timeout', () => {
    const text = renderProfileSummary('engine steady', summarizeProfile(profile), 10);
    expect(text).toContain('65.00 us per fired timeout (10 fired)');
    expect(text).toMatch(/61\.5%\s+40\.00 us\/fired {2}engine/);
  });
});
