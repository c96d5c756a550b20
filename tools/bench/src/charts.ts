import type { RunResult } from './report.js';
import type { CdfPoint } from './stats.js';
import { SYSTEM } from './systems/names.js';
import { formatNumber } from './table.js';
import type { Workload } from './workloads.js';

/** One line of a chart: its name in the legend and its points in data units. */
interface Series {
  name: string;
  points: { x: number; y: number }[];
  dashed?: boolean;
  /** Dotted instead (a third line style, for charts with three lines per colour). */
  dotted?: boolean;
  /** A dot on each point (lines through a few measured points). */
  dots?: boolean;
  colour: string;
}

/** How one axis maps data to pixels and where it puts its ticks. */
interface Axis {
  label: string;
  min: number;
  max: number;
  log: boolean;
  ticks: { value: number; text: string }[];
}

const HEIGHT = 420;
/** The plot area in pixels; the legend goes right of it, as wide as its longest name needs. */
const PLOT = { left: 70, right: 500, top: 40, bottom: 60 };
/** Roughly the width of a character of the 12-px legend text. */
const CHAR_PX = 7;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf', '#7f7f7f'];
/** Lateness at or below this (0 ms, or a fire a millisecond early) is drawn here on the log axis. */
const LATENESS_FLOOR_MS = 0.5;

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

function scale(axis: Axis, value: number, from: number, to: number): number {
  const at = (v: number) => (axis.log ? Math.log10(v) : v);
  const share = (at(value) - at(axis.min)) / (at(axis.max) - at(axis.min) || 1);
  return from + share * (to - from);
}

/** A chart with axes, tick labels, axis labels, a legend and one `<path class="curve">` per series. */
function renderChart(title: string, x: Axis, y: Axis, series: readonly Series[]): string {
  const [left, right, top, bottom] = [PLOT.left, PLOT.right, PLOT.top, HEIGHT - PLOT.bottom];
  const width = right + 60 + CHAR_PX * Math.max(20, ...series.map((line) => line.name.length));
  const px = (v: number) => scale(x, v, left, right).toFixed(1);
  const py = (v: number) => scale(y, v, bottom, top).toFixed(1);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
    `<path class="axis" d="M${left} ${top}V${bottom}H${right}" stroke="black" fill="none"/>`,
  ];
  for (const tick of x.ticks) {
    out.push(`<path d="M${px(tick.value)} ${bottom}v5" stroke="black"/><text x="${px(tick.value)}" y="${bottom + 18}" text-anchor="middle">${escapeXml(tick.text)}</text>`);
  }
  for (const tick of y.ticks) {
    out.push(`<path d="M${left} ${py(tick.value)}H${right}" stroke="#ddd"/><text x="${left - 8}" y="${py(tick.value)}" dy="4" text-anchor="end">${escapeXml(tick.text)}</text>`);
  }
  out.push(
    `<text class="axis-label" x="${(left + right) / 2}" y="${HEIGHT - 18}" text-anchor="middle">${escapeXml(x.label)}</text>`,
    `<text class="axis-label" transform="translate(18 ${(top + bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(y.label)}</text>`,
  );
  series.forEach((line, i) => {
    const d = line.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p.x)} ${py(p.y)}`).join('');
    const dash = line.dashed ? ' stroke-dasharray="6 4"' : line.dotted ? ' stroke-dasharray="2 3"' : '';
    out.push(`<path class="curve" data-series="${escapeXml(line.name)}" d="${d}" stroke="${line.colour}" stroke-width="2" fill="none"${dash}/>`);
    if (line.dots) for (const p of line.points) out.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3.5" fill="${line.colour}"/>`);
    const ly = top + 10 + i * 20;
    out.push(`<path d="M${right + 15} ${ly}h24" stroke="${line.colour}" stroke-width="2"${dash}/><text x="${right + 45}" y="${ly}" dy="4">${escapeXml(line.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Decade ticks 1, 10, 100, ... covering [min, max]. */
function decades(min: number, max: number, unit: string): { value: number; text: string }[] {
  const ticks = [];
  for (let value = 10 ** Math.ceil(Math.log10(min)); value <= max * 1.0001; value *= 10) ticks.push({ value, text: `${formatNumber(value)}${unit}` });
  return ticks;
}

/**
 * The lateness of every system of one workload as cumulative distributions: x the lateness on a
 * log axis (0 ms and early fires drawn at 0.5 ms), y the share of timeouts fired by then.
 * Undefined when no run of the workload measured a lateness.
 */
export function latenessCdfSvg(workload: string, runs: readonly RunResult[]): string | undefined {
  const measured = runs.filter((run) => run.workload === workload && run.latenessCdf && run.latenessCdf.length > 0);
  if (measured.length === 0) return undefined;
  const floor = (point: CdfPoint) => Math.max(LATENESS_FLOOR_MS, point.ms);
  const max = Math.max(10, ...measured.map((run) => floor(run.latenessCdf!.at(-1)!)));
  const series = measured.map((run, i) => {
    const points = [{ x: LATENESS_FLOOR_MS, y: 0 }];
    for (const point of run.latenessCdf!) {
      points.push({ x: floor(point), y: points.at(-1)!.y }, { x: floor(point), y: point.fraction });
    }
    return { name: run.system, points, colour: COLOURS[i % COLOURS.length]! };
  });
  const x: Axis = { label: 'lateness (ms, log scale; on time or early at 0.5)', min: LATENESS_FLOOR_MS, max: 10 ** Math.ceil(Math.log10(max)), log: true, ticks: decades(1, max * 10, '') };
  const y: Axis = { label: 'share of timeouts fired (%)', min: 0, max: 1, log: false, ticks: [0, 0.25, 0.5, 0.75, 0.9, 1].map((value) => ({ value, text: `${value * 100}` })) };
  return renderChart(`Lateness, ${workload}`, x, y, series);
}

/** Timeouts due per second of a steady workload; undefined for a burst. */
function rateOf(workload: Workload): number | undefined {
  return workload.kind === 'steady' && workload.windowMs > 0 ? (workload.count * 1000) / workload.windowMs : undefined;
}

/**
 * Worker CPU (solid) and Redis CPU (dashed) per fired timeout of durable-timeout and BullMQ at
 * each steady rate that ran, on a log rate axis. Undefined when fewer than one rate has a figure.
 */
export function cpuByRateSvg(workloads: readonly Workload[], runs: readonly RunResult[]): string | undefined {
  const steady = workloads.flatMap((workload) => {
    const rate = rateOf(workload);
    return rate === undefined ? [] : [{ name: workload.name, rate }];
  });
  const series: Series[] = [];
  [SYSTEM.engine, SYSTEM.bullmq].forEach((system, i) => {
    for (const [figure, dashed, part] of [['workerCpuUsPerFired', false, 'worker'], ['redisCpuUsPerFired', true, 'Redis']] as const) {
      const points = steady.flatMap(({ name, rate }) => {
        const value = runs.find((run) => run.system === system && run.workload === name)?.[figure];
        return value === null || value === undefined ? [] : [{ x: rate, y: value }];
      });
      if (points.length > 0) series.push({ name: `${system}, ${part}`, points, dashed, dots: true, colour: COLOURS[i]! });
    }
  });
  if (series.length === 0) return undefined;
  const rates = steady.map((s) => s.rate);
  const x: Axis = { label: 'timeouts due per second (log scale)', min: Math.min(...rates) / 1.5, max: Math.max(...rates) * 1.5, log: true, ticks: rates.map((rate) => ({ value: rate, text: formatNumber(rate) })) };
  const y = linearAxis('CPU per fired timeout (us)', Math.max(...series.flatMap((s) => s.points.map((p) => p.y))));
  return renderChart('CPU per fired timeout by rate (solid: worker, dashed: Redis)', x, y, series);
}

/** A linear axis from 0 to `top` rounded up, ticks at the smallest of 1, 2, 5 x 10^k that leaves at most six steps. */
function linearAxis(label: string, top: number): Axis {
  const decade = 10 ** Math.floor(Math.log10(top || 1));
  const step = [decade / 5, decade / 2, decade, decade * 2].find((candidate) => top / candidate <= 6) ?? decade * 5;
  const max = Math.ceil(top / step) * step || step;
  const ticks = Array.from({ length: Math.round(max / step) + 1 }, (_, k) => ({ value: k * step, text: formatNumber(k * step, step < 1 ? 1 : 0) }));
  return { label, min: 0, max, log: false, ticks };
}

/** The memory samples of one system's soak (`SoakRun` has them). */
export interface MemoryTrace {
  system: string;
  samples: readonly { atMs: number; workerHeapUsedBytes: number; workerRssBytes: number; redisUsedMemoryBytes: number }[];
}

/**
 * Memory over a soak: the worker's heap used (solid) and RSS (dashed) and Redis `used_memory`
 * (dotted) of each system, in MB, against minutes since the measured window started. Undefined
 * when no system has samples.
 */
export function memoryOverTimeSvg(traces: readonly MemoryTrace[]): string | undefined {
  const measured = traces.filter((trace) => trace.samples.length > 0);
  if (measured.length === 0) return undefined;
  const figures = [
    ['workerHeapUsedBytes', 'worker heap used'],
    ['workerRssBytes', 'worker RSS'],
    ['redisUsedMemoryBytes', 'Redis used_memory'],
  ] as const;
  const series: Series[] = measured.flatMap((trace, i) =>
    figures.map(([field, part], style) => ({
      name: `${trace.system}, ${part}`,
      points: trace.samples.map((sample) => ({ x: sample.atMs / 60_000, y: sample[field] / 1e6 })),
      dashed: style === 1,
      dotted: style === 2,
      colour: COLOURS[i % COLOURS.length]!,
    })),
  );
  const x = linearAxis('minutes since the measured window started', Math.max(...series.flatMap((s) => s.points.map((p) => p.x))));
  const y = linearAxis('MB', Math.max(...series.flatMap((s) => s.points.map((p) => p.y))));
  return renderChart('Memory over the soak (solid: worker heap, dashed: worker RSS, dotted: Redis)', x, y, series);
}
