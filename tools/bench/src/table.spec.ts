import { describe, expect, it } from '@jest/globals';
import { formatNumber, renderMarkdownTable, renderTable } from './table.js';

describe('renderTable', () => {
  const columns = [{ header: 'system' }, { header: 'fired/s', align: 'right' as const }];

  it('pads every column to its widest cell and right-aligns numbers', () => {
    const text = renderTable(columns, [['bullmq', '17,000'], ['durable-timeout', '90']]);
    expect(text.split('\n')).toEqual([
      'system           fired/s',
      '---------------  -------',
      'bullmq            17,000',
      'durable-timeout       90',
    ]);
  });

  it('renders Markdown with alignment and escaped pipes', () => {
    expect(renderMarkdownTable(columns, [['a|b', '1']]).split('\n')).toEqual([
      '| system | fired/s |',
      '| --- | ---: |',
      '| a\\|b | 1 |',
    ]);
  });
});

describe('formatNumber', () => {
  it('groups thousands and rounds to the digits asked', () => {
    expect(formatNumber(1234567.891)).toBe('1,234,568');
    expect(formatNumber(2.345, 2)).toBe('2.35');
  });

  it('shows a dash for missing figures', () => {
    expect(formatNumber(null)).toBe('-');
    expect(formatNumber(undefined)).toBe('-');
    expect(formatNumber(Number.NaN)).toBe('-');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('inf');
  });
});
