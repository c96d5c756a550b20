import { describe, expect, it } from '@jest/globals';
import { ProgressPrinter } from './progress-printer.js';

describe('ProgressPrinter', () => {
  it('tags phase lines with the mode and status lines with the seconds since the mode started', () => {
    const lines: string[] = [];
    const printer = new ProgressPrinter('durable', (line) => lines.push(line));
    printer.phase('placing 40 orders');
    printer.status('pending 40');
    expect(lines[0]).toBe('[durable] placing 40 orders');
    expect(lines[1]).toMatch(/^\[durable\] {3}\s*\d+\.\d s {2}pending 40$/);
    const legacy: string[] = [];
    new ProgressPrinter('legacy', (line) => legacy.push(line)).phase('x');
    expect(legacy[0]).toBe('[legacy ] x');
  });
});
