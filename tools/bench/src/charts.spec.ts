import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpuByRateSvg, latenessCdfSvg, memoryOverTimeSvg } from './charts.js';
import { failedRun, type RunResult } from './report.js';
import { cumulativeDistribution } from './stats.js';
import { standardWorkloads } from './workloads.js';

/**
 * A minimal XML well-formedness check (no parser among the dependencies): one root element, every
 * tag closed in order, attributes quoted, no raw `<` or stray `&` in text or attribute values.
 * Returns the elements it met, in document order, with their attributes.
 */
function parseXml(text: string): { name: string; attributes: Map<string, string>; text: string }[] {
  const elements: { name: string; attributes: Map<string, string>; text: string }[] = [];
  const open: { name: string; index: number }[] = [];
  let roots = 0;
  const checkText = (chunk: string) => {
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(chunk)) throw new Error(`stray & in ${chunk}`);
  };
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let at = text.indexOf('<');
  if (text.slice(0, at).trim() !== '') throw new Error('text before the root');
  while (at < text.length) {
    const next = text.indexOf('<', at);
    const chunk = next === -1 ? text.slice(at) : text.slice(at, next);
    checkText(chunk);
    if (open.length > 0) elements[open.at(-1)!.index]!.text += chunk;
    else if (chunk.trim() !== '') throw new Error('text outside the root');
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(text);
    if (!match) throw new Error(`malformed tag at ${next}: ${text.slice(next, next + 40)}`);
    const [whole, closing, name, attributeText, selfClosing] = match;
    if (closing) {
      if (open.pop()?.name !== name) throw new Error(`</${name}> closes nothing open`);
    } else {
      if (open.length === 0 && ++roots > 1) throw new Error('more than one root');
      const attributes = new Map<string, string>();
      for (const [, key, value] of attributeText!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
        if (attributes.has(key!)) throw new Error(`attribute ${key} twice`);
        checkText(value!);
        attributes.set(key!, value!);
      }
      elements.push({ name: name!, attributes, text: '' });
      if (!selfClosing) open.push({ name: name!, index: elements.length - 1 });
    }
    at = next + whole!.length;
  }
  if (open.length > 0 || roots !== 1) throw new Error('unclosed elements or no root');
  return elements;
}

const lateness = (values: number[]) => ({ lateness: { p50: values[0]!, p99: values.at(-1)!, max: values.at(-1)! }, latenessCdf: cumulativeDistribution(values) });

function run(system: string, workload: string, figures: Partial<RunResult>): RunResult {
  return { ...failedRun(system, { name: workload, count: 0 }), ...figures };
}

const RUNS: RunResult[] = [
  run('durable-timeout', 'steady 2k/s', { ...lateness([0, 1, 1, 2, 3, 9]), workerCpuUsPerFired: 150, redisCpuUsPerFired: 120 }),
  run('bullmq', 'steady 2k/s', { ...lateness([20, 27, 30, 86]), workerCpuUsPerFired: 107, redisCpuUsPerFired: 109 }),
  run('setTimeout (memory) & <friends>', 'steady 2k/s', lateness([-1, 0, 0, 1])),
  run('polling 1s (SET NX + ZREM)', 'steady 2k/s', {}),
  run('durable-timeout', 'steady 200/s', { ...lateness([1, 2]), workerCpuUsPerFired: 300, redisCpuUsPerFired: 200 }),
  run('bullmq', 'steady 200/s', { ...lateness([5, 6]), workerCpuUsPerFired: 250, redisCpuUsPerFired: 180 }),
  run('durable-timeout', 'steady 10k/s', { ...lateness([2, 19]), workerCpuUsPerFired: 49, redisCpuUsPerFired: 61 }),
  run('bullmq', 'steady 10k/s', { ...lateness([500, 632]), workerCpuUsPerFired: 78, redisCpuUsPerFired: 125 }),
  run('durable-timeout', 'burst 50k', { ...lateness([800, 1500]), workerCpuUsPerFired: 18, redisCpuUsPerFired: 30 }),
];

const curves = (svg: string) => parseXml(svg).filter((e) => e.name === 'path' && e.attributes.get('class') === 'curve');
const axisLabels = (svg: string) => parseXml(svg).filter((e) => e.attributes.get('class') === 'axis-label').map((e) => e.text);

describe('latenessCdfSvg', () => {
  it('draws one curve per system that measured a lateness, on labelled axes, as well-formed XML', () => {
    const svg = latenessCdfSvg('steady 2k/s', RUNS)!;
    expect(parseXml(svg)[0]!.name).toBe('svg');
    expect(curves(svg).map((c) => c.attributes.get('data-series'))).toEqual(['durable-timeout', 'bullmq', 'setTimeout (memory) &amp; &lt;friends&gt;']);
    expect(axisLabels(svg)).toEqual([expect.stringMatching(/lateness \(ms, log scale/), expect.stringMatching(/share of timeouts/)]);
  });

  it('rises to 100 % at the largest lateness of each system', () => {
    const svg = latenessCdfSvg('steady 2k/s', RUNS)!;
    for (const curve of curves(svg)) {
      const ys = [...curve.attributes.get('d')!.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
      expect(ys.at(-1)).toBe(Math.min(...ys));
      expect(ys).toEqual([...ys].sort((a, b) => b - a));
    }
  });

  it('draws nothing for a workload nobody measured', () => {
    expect(latenessCdfSvg('steady 5k/s', RUNS)).toBeUndefined();
  });
});

describe('cpuByRateSvg', () => {
  it('draws worker and Redis CPU of durable-timeout and BullMQ over the steady rates, axes labelled', () => {
    const svg = cpuByRateSvg(standardWorkloads(false), RUNS)!;
    const lines = curves(svg);
    expect(lines.map((c) => c.attributes.get('data-series'))).toEqual(['durable-timeout, worker', 'durable-timeout, Redis', 'bullmq, worker', 'bullmq, Redis']);
    for (const line of lines) expect(line.attributes.get('d')!.match(/[ML]/g)).toHaveLength(3);
    expect(axisLabels(svg)).toEqual(['timeouts due per second (log scale)', 'CPU per fired timeout (us)']);
    const ticks = parseXml(svg).filter((e) => e.name === 'text').map((e) => e.text);
    expect(ticks).toEqual(expect.arrayContaining(['200', '2,000', '10,000']));
  });

  it('draws the rates that ran, and nothing without a figure', () => {
    const some = RUNS.filter((r) => r.workload !== 'steady 200/s');
    expect(curves(cpuByRateSvg(standardWorkloads(false), some)!)[0]!.attributes.get('d')!.match(/[ML]/g)).toHaveLength(2);
    expect(cpuByRateSvg(standardWorkloads(false), [])).toBeUndefined();
  });
});

describe('memoryOverTimeSvg', () => {
  const samples = (mb: number) => Array.from({ length: 13 }, (_, k) => ({ atMs: k * 10_000, workerHeapUsedBytes: mb * 1e6, workerRssBytes: 3 * mb * 1e6, redisUsedMemoryBytes: (mb / 2) * 1e6 }));

  it('draws heap, RSS and used_memory of each system over the minutes, axes labelled, as well-formed XML', () => {
    const svg = memoryOverTimeSvg([{ system: 'durable-timeout', samples: samples(30) }, { system: 'bullmq', samples: samples(25) }, { system: 'none', samples: [] }])!;
    expect(curves(svg).map((c) => c.attributes.get('data-series'))).toEqual([
      'durable-timeout, worker heap used',
      'durable-timeout, worker RSS',
      'durable-timeout, Redis used_memory',
      'bullmq, worker heap used',
      'bullmq, worker RSS',
      'bullmq, Redis used_memory',
    ]);
    for (const line of curves(svg)) expect(line.attributes.get('d')!.match(/[ML]/g)).toHaveLength(13);
    expect(axisLabels(svg)).toEqual(['minutes since the measured window started', 'MB']);
    const ticks = parseXml(svg).filter((e) => e.name === 'text').map((e) => e.text);
    expect(ticks).toEqual(expect.arrayContaining(['0.0', '2.0', '0', '100']));
  });

  it('draws nothing without samples', () => {
    expect(memoryOverTimeSvg([{ system: 'bullmq', samples: [] }])).toBeUndefined();
  });
});

describe('the XML check itself', () => {
  it('refuses what is not well-formed', () => {
    expect(() => parseXml('<svg><g></svg>')).toThrow();
    expect(() => parseXml('<svg a="1 & 2"/>')).toThrow();
    expect(() => parseXml('<svg/><svg/>')).toThrow();
    expect(() => parseXml('<svg a=1/>')).toThrow();
    expect(parseXml('<svg><g a="x &amp; y">t</g></svg>')).toHaveLength(2);
  });
});

describe('the charts of the last full run, as docs/BENCHMARKS.md and the README show them (docs/bench)', () => {
  const dir = fileURLToPath(new URL('../../../docs/bench/', import.meta.url));
  const read = (name: string) => readFileSync(`${dir}${name}`, 'utf8');

  it('are the charts the bench writes: well-formed, with labelled axes', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.svg'));
    expect(files.sort()).toEqual(['cpu-by-rate.svg', 'lateness-steady-10k-s.svg', 'lateness-steady-2k-s.svg']);
    for (const file of files) {
      expect(parseXml(read(file))[0]!.name).toBe('svg');
      expect(axisLabels(read(file))).toHaveLength(2);
    }
  });

  it('hold one lateness curve per system of the run, and the CPU of both systems at each steady rate', () => {
    for (const file of ['lateness-steady-2k-s.svg', 'lateness-steady-10k-s.svg']) {
      const series = curves(read(file)).map((c) => c.attributes.get('data-series'));
      expect(new Set(series).size).toBe(series.length);
      expect(series).toEqual(expect.arrayContaining(['durable-timeout', 'bullmq', 'setTimeout (memory)']));
    }
    const lines = curves(read('cpu-by-rate.svg'));
    expect(lines.map((c) => c.attributes.get('data-series'))).toEqual(['durable-timeout, worker', 'durable-timeout, Redis', 'bullmq, worker', 'bullmq, Redis']);
    for (const line of lines) expect(line.attributes.get('d')!.match(/[ML]/g)).toHaveLength(3);
  });
});
