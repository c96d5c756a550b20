/** Formatting of figures for the human (non-JSON) output. */

/** A count with thousands separators: 12,345. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** A duration for people: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(abs)} ms`;
  if (abs < 60_000) return `${(abs / 1_000).toFixed(1)} s`;
  const seconds = Math.floor(abs / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3_600)} h`;
}

/** An age that is 0 when nothing is overdue: `-` then. */
export function formatAge(ms: number): string {
  return ms > 0 ? formatDuration(ms) : '-';
}

/** A point in time, ms since the epoch, as ISO 8601 UTC. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A due time relative to `now`: `in 12.0 s` or `overdue 3.0 s`. */
export function formatDue(dueAt: number, now: number): string {
  return dueAt > now ? `in ${formatDuration(dueAt - now)}` : `overdue ${formatDuration(now - dueAt)}`;
}

/** A past time relative to `now`: `3.0 s ago`. */
export function formatAgo(at: number, now: number): string {
  return `${formatDuration(Math.max(0, now - at))} ago`;
}

/** One line of at most `max` characters: line breaks become spaces, the rest is cut with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
