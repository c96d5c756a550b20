import { describe, expect, it } from '@jest/globals';
import { modeFigures } from './mode-figures.fixture.js';
import { formatMs, renderTable, tableFootnotes } from './report-table.js';


describe('formatMs', () => {
  it('rounds and groups thousands; a dash when there is nothing', () => {
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(12_345)).toBe('12 345 ms');
    expect(formatMs(null)).toBe('-');
  });
});

describe('renderTable', () => {
  const legacy = modeFigures({ mode: 'legacy', paid: 74, timedOut: 100, stuck: 126, worstLatenessMs: 4, medianLatenessMs: null });
  const durable = modeFigures({});
  const lines = renderTable([legacy, durable]).split('\n');

  it('has a header with one column per mode and a rule as wide as it', () => {
    expect(lines[0].trim().split(/\s+/)).toEqual(['legacy', 'durable']);
    expect(lines[1]).toMatch(/^-+$/);
    expect(lines[1].length).toBe(lines[0].length);
  });

  it('puts each mode figure in its column, right-aligned', () => {
    const row = (label: string) => lines.find((line) => line.startsWith(label));
    expect(row('stuck in PENDING_PAYMENT')?.trim().split(/\s{2,}/)).toEqual(['stuck in PENDING_PAYMENT', '126', '0']);
    expect(row('worst lateness')?.trim().split(/\s{2,}/)).toEqual(['worst lateness', '4 ms', '3 210 ms']);
    expect(row('median lateness')?.trim().split(/\s{2,}/)).toEqual(['median lateness', '-', '15 ms']);
    expect(row('late payments refused (409)')).toMatch(/15\/15\s+15\/15$/);
    for (const line of lines) expect(line.length).toBe(lines[0].length);
  });

  it('shows created/requested when some orders could not be created', () => {
    const table = renderTable([modeFigures({ created: 290 })]);
    expect(table).toMatch(/orders created\s+290\/300/);
  });

  it('adds the other-status and unreadable rows only when a mode has some', () => {
    expect(lines.some((line) => line.startsWith('unreadable'))).toBe(false);
    expect(lines.some((line) => line.startsWith('other status'))).toBe(false);
    const table = renderTable([legacy, modeFigures({ unreadable: 2, otherStatus: 1 })]);
    expect(table).toMatch(/unreadable at the end\s+0\s+2/);
    expect(table).toMatch(/other status\s+0\s+1/);
  });
});

describe('tableFootnotes', () => {
  it('explains stuck and lateness with the lease the demo gave the app', () => {
    const text = tableFootnotes(2000).join(' ');
    expect(text).toContain('TIMEOUT_LEASE_MS=2000');
    expect(text).toMatch(/stuck: still PENDING_PAYMENT/);
  });
});
