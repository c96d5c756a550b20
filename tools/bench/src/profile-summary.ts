/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) the summary reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives, coarsely. */
export type ProfileArea = 'engine' | 'ioredis' | 'node internals' | 'gc' | 'bench harness' | 'other code' | 'program';

/** Self time of one function or one area. */
export interface ProfileEntry {
  name: string;
  area: ProfileArea;
  selfUs: number;
}

/** Where the busy (non-idle) time of a profile went. */
export interface ProfileSummary {
  busyUs: number;
  byArea: ProfileEntry[];
  topFunctions: ProfileEntry[];
}

/** The area of a call frame, from its script URL. */
export function areaOf(functionName: string, url: string): ProfileArea | 'idle' {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'gc';
  if (url === '') return 'program';
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/node_modules/ioredis/') || url.includes('/node_modules/@ioredis/') || url.includes('/node_modules/redis-parser/')) return 'ioredis';
  if (url.includes('/packages/core/') || url.includes('/packages/nestjs/') || url.includes('/@durable-timeout/core/')) return 'engine';
  if (url.includes('/tools/bench/')) return 'bench harness';
  return 'other code';
}

function shortUrl(url: string): string {
  const marker = ['/node_modules/', '/packages/', '/apps/', '/tools/'].map((m) => url.lastIndexOf(m)).find((i) => i >= 0);
  return marker === undefined ? url : url.slice(marker + 1);
}

/**
 * Self time per function and per area, idle time left out. Each sample is charged the time delta
 * that follows it (V8 records the delta before the next sample).
 */
export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, ProfileEntry>();
  const byArea = new Map<ProfileArea, number>();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = frames.get(profile.samples[i]!);
    if (!frame) continue;
    const deltaUs = Math.max(0, profile.timeDeltas[i + 1] ?? 0);
    const area = areaOf(frame.functionName, frame.url);
    if (area === 'idle') continue;
    busyUs += deltaUs;
    byArea.set(area, (byArea.get(area) ?? 0) + deltaUs);
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
    const entry = byFunction.get(name) ?? { name, area, selfUs: 0 };
    entry.selfUs += deltaUs;
    byFunction.set(name, entry);
  }
  return {
    busyUs,
    byArea: [...byArea].map(([area, selfUs]) => ({ name: area, area, selfUs })).sort((a, b) => b.selfUs - a.selfUs),
    topFunctions: [...byFunction.values()].sort((a, b) => b.selfUs - a.selfUs).slice(0, top),
  };
}

/** The summary as text, with microseconds per fired timeout. */
export function renderProfileSummary(title: string, summary: ProfileSummary, fired: number): string {
  const perFired = (us: number): string => (fired > 0 ? (us / fired).toFixed(2) : '-');
  const share = (us: number): string => (summary.busyUs > 0 ? `${((100 * us) / summary.busyUs).toFixed(1)}%` : '-');
  const lines = [`${title}: ${(summary.busyUs / 1000).toFixed(0)} ms busy CPU, ${perFired(summary.busyUs)} us per fired timeout (${fired} fired)`];
  lines.push('  by area:');
  for (const entry of summary.byArea) lines.push(`    ${share(entry.selfUs).padStart(6)}  ${perFired(entry.selfUs).padStart(7)} us/fired  ${entry.name}`);
  lines.push('  top functions (self time):');
  for (const entry of summary.topFunctions) lines.push(`    ${share(entry.selfUs).padStart(6)}  ${perFired(entry.selfUs).padStart(7)} us/fired  [${entry.area}] ${entry.name}`);
  return lines.join('\n');
}
