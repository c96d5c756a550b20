import type { ModeFigures } from './mode-figures.js';

interface Row {
  label: string;
  value: (figures: ModeFigures) => string;
  /** Shown only when some mode has something to say in it. */
  onlyWhen?: (figures: ModeFigures) => boolean;
}

const ROWS: Row[] = [
  { label: 'orders created', value: (f) => (f.created === f.ordersRequested ? `${f.created}` : `${f.created}/${f.ordersRequested}`) },
  { label: 'paid (CONFIRMED)', value: (f) => `${f.paid}` },
  { label: 'timed out (PAYMENT_TIMEOUT)', value: (f) => `${f.timedOut}` },
  { label: 'stuck in PENDING_PAYMENT', value: (f) => `${f.stuck}` },
  { label: 'duplicate transitions', value: (f) => `${f.duplicateTransitions}` },
  { label: 'worst lateness', value: (f) => formatMs(f.worstLatenessMs) },
  { label: 'median lateness', value: (f) => formatMs(f.medianLatenessMs) },
  { label: 'late payments refused (409)', value: (f) => `${f.latePayments.refused}/${f.latePayments.attempted}` },
  { label: 'other status', value: (f) => `${f.otherStatus}`, onlyWhen: (f) => f.otherStatus > 0 },
  { label: 'unreadable at the end', value: (f) => `${f.unreadable}`, onlyWhen: (f) => f.unreadable > 0 },
];

/** Milliseconds for the table: `1 234 ms`, or `-` when there is nothing to measure. */
export function formatMs(value: number | null): string {
  if (value === null) return '-';
  return `${Math.round(value).toLocaleString('en-US').replace(/,/g, ' ')} ms`;
}

/** The side-by-side table of the modes' figures, one column per mode, as plain text lines. */
export function renderTable(modes: ModeFigures[]): string {
  const rows = ROWS.filter((row) => !row.onlyWhen || modes.some(row.onlyWhen));
  const labelWidth = Math.max(...rows.map((row) => row.label.length));
  const cells = rows.map((row) => modes.map((figures) => row.value(figures)));
  const widths = modes.map((figures, column) =>
    Math.max(figures.mode.length, ...cells.map((line) => line[column].length)),
  );
  const line = (label: string, values: string[]): string =>
    [label.padEnd(labelWidth), ...values.map((value, column) => value.padStart(widths[column]))].join('   ');
  const header = line('', modes.map((figures) => figures.mode));
  const rule = '-'.repeat(header.length);
  return [header, rule, ...rows.map((row, index) => line(row.label, cells[index]))].join('\n');
}

/** Lines printed under the table so a newcomer can read it. */
export function tableFootnotes(leaseMs: number): string[] {
  return [
    'stuck: still PENDING_PAYMENT after the last deadline: its in-memory timer died with its process.',
    'lateness: from the payment deadline to PAYMENT_TIMEOUT. Durable lateness comes from the moments no',
    'instance was up, and from the SIGKILLed instance\'s claims, which other instances fire again once',
    `their lease (TIMEOUT_LEASE_MS=${leaseMs}) has expired.`,
  ];
}
