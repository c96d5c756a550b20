import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { aclRulesFor, DurableTimeouts, type TopicOptions } from '@durable-timeout/core';
import { MemoryTimeoutStore } from '@durable-timeout/core/testing';
import { DurableTimeoutModule } from '@durable-timeout/nestjs';
// The admin page's defaults are not exported: read where the module takes them from.
import { DEFAULT_ADMIN_PATH } from '../../packages/nestjs/src/admin/durable-timeout-admin.constants.js';
import { MIN_TOKEN_LENGTH } from '../../packages/nestjs/src/admin/durable-timeout-admin.messages.js';
import { resolveAdminSettings } from '../../packages/nestjs/src/admin/durable-timeout-admin.settings.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const documents = ['README.md', 'CONTRIBUTING.md', ...readdirSync(`${root}docs`).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The rows of the option table in docs/CONFIGURATION.md: option name -> default cell. */
function optionTable(): Map<string, string> {
  const text = read('docs/CONFIGURATION.md');
  const section = text.slice(text.indexOf('## Options'), text.indexOf('\n## ', text.indexOf('## Options') + 1));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)];
  return new Map(rows.map((row) => [row[1]!, row[2]!.trim()]));
}

/** `60,000` -> 60000, `` `dt` `` -> 'dt', `` `false` `` -> false; anything else as written. */
function valueOf(cell: string): unknown {
  if (/^[\d,]+$/.test(cell)) return Number(cell.replaceAll(',', ''));
  const code = /^`([^`]*)`$/.exec(cell)?.[1];
  if (code === 'false' || code === 'true') return code === 'true';
  return code ?? cell;
}

describe('docs/CONFIGURATION.md', () => {
  const table = optionTable();
  // What the engine applies when nothing is given: read from an engine, not from a second copy.
  const settings = new DurableTimeouts({ topics: { t: {} }, store: new MemoryTimeoutStore() }).settings;
  const topic = settings.topics['t']!;

  it('gives every engine-wide default as the engine applies it', () => {
    for (const name of ['prefix', 'sweepIntervalMs', 'commandTimeoutMs', 'drainMs'] as const) {
      expect({ name, documented: valueOf(table.get(name) ?? '(missing)') }).toEqual({ name, documented: settings[name] });
    }
  });

  it('gives every topic default as the engine applies it, maxRunMs as a multiple of leaseMs, no late policy', () => {
    const { backoff, maxRunMs, codec, late, rateLimit, ...plain } = topic;
    expect(late).toBeUndefined();
    expect(table.get('topics.<name>.late')).toBe('none');
    expect(rateLimit).toBeUndefined();
    expect(table.get('topics.<name>.rateLimit.perSecond')).toBe('none');
    expect(table.get('topics.<name>.rateLimit.burst')).toBe('`perSecond` rounded up');
    for (const [name, value] of Object.entries(plain)) {
      expect({ name, documented: valueOf(table.get(`topics.<name>.${name}`) ?? '(missing)') }).toEqual({ name, documented: value });
    }
    expect(valueOf(table.get('topics.<name>.backoff.baseMs')!)).toBe(backoff.baseMs);
    expect(valueOf(table.get('topics.<name>.backoff.capMs')!)).toBe(backoff.capMs);
    expect(table.get('topics.<name>.maxRunMs')).toBe('10 x `leaseMs`');
    expect(maxRunMs).toBe(10 * topic.leaseMs);
    expect(table.get('topics.<name>.codec')).toBe("the engine's `codec`");
    expect([table.get('codec'), codec]).toEqual(['none', null]);
    const leaseMs = 1_234;
    expect(new DurableTimeouts({ topics: { t: { leaseMs } }, store: new MemoryTimeoutStore() }).settings.topics['t']!.maxRunMs).toBe(10 * leaseMs);
  });

  it("documents the Nest module's isGlobal as forRoot applies it", () => {
    expect(valueOf(table.get('isGlobal')!)).toBe(DurableTimeoutModule.forRoot({ topics: {} }).global ?? false);
  });

  it('lists only options the engine takes: every documented topic option is accepted, an unknown one refused', () => {
    const documentedTopicOptions = [...table.keys()].filter((name) => name.startsWith('topics.<name>.')).map((name) => name.slice('topics.<name>.'.length));
    const given: Record<string, unknown> = {};
    // Options without a default, given a value of their own.
    const withValues = { ...topic, late: { afterMs: 1_000, action: 'skip' }, rateLimit: { perSecond: 10, burst: 5 } };
    for (const name of documentedTopicOptions) {
      const [head, tail] = name.split('.');
      const value = tail ? (withValues as unknown as Record<string, Record<string, unknown>>)[head!]![tail] : (withValues as unknown as Record<string, unknown>)[head!];
      given[head!] = tail ? { ...(given[head!] as object), [tail]: value } : value;
    }
    expect(() => new DurableTimeouts({ topics: { t: given as TopicOptions }, store: new MemoryTimeoutStore() })).not.toThrow();
    expect(() => new DurableTimeouts({ topics: { t: { leaseMS: 1 } as TopicOptions }, store: new MemoryTimeoutStore() })).toThrow(/leaseMS/);
    const engineWide = ['connection', 'prefix', 'topics', 'sweepIntervalMs', 'commandTimeoutMs', 'drainMs', 'durability', 'logger', 'store', 'codec', 'isGlobal'];
    expect([...table.keys()].filter((name) => !name.startsWith('topics.<name>.')).sort()).toEqual(engineWide.sort());
  });
});

describe("docs/OPERATING.md, the admin page's options", () => {
  const text = read('docs/OPERATING.md');
  const section = text.slice(text.indexOf('## The admin page'), text.indexOf('\n## ', text.indexOf('## The admin page') + 1));
  const table = new Map([...section.matchAll(/^\| `(\w+)`(?: \(extra\))? \| ([^|]+) \| ([^|]+) \|$/gm)].map((row) => [row[1]!, { value: row[2]!.trim(), what: row[3]!.trim() }]));
  const token = 'x'.repeat(MIN_TOKEN_LENGTH);

  it('lists every option with the default the module applies', () => {
    expect([...table.keys()].sort()).toEqual(['guard', 'pageSize', 'path', 'showPayloads', 'token']);
    const settings = resolveAdminSettings({ token }, false);
    expect(table.get('path')!.value).toBe(`\`${DEFAULT_ADMIN_PATH}\``);
    expect(table.get('showPayloads')!.value).toBe(`\`${settings.showPayloads}\``);
    expect(Number(table.get('pageSize')!.value)).toBe(settings.pageSize);
  });

  it('gives the limits the module checks: the page size, the shortest token', () => {
    const [, min, max] = /\((\d+) to (\d+)\)/.exec(table.get('pageSize')!.what)!;
    for (const pageSize of [Number(min), Number(max)]) expect(resolveAdminSettings({ token, pageSize }, false).pageSize).toBe(pageSize);
    for (const pageSize of [Number(min) - 1, Number(max) + 1]) expect(() => resolveAdminSettings({ token, pageSize }, false)).toThrow();
    expect(section).toContain(`a secret of at least ${MIN_TOKEN_LENGTH} characters`);
    expect(() => resolveAdminSettings({ token: token.slice(1) }, false)).toThrow();
  });
});

describe('the least-privilege ACL line', () => {
  it('is stated once, in docs/OPERATING.md, as aclRulesFor builds it', () => {
    const lines = documents.flatMap((document) => read(document).split('\n').filter((line) => line.includes('ACL SETUSER timeouts')).map((line) => ({ document, line: line.trim() })));
    expect(lines).toEqual([{ document: 'docs/OPERATING.md', line: `ACL SETUSER timeouts on >secret ${aclRulesFor('dt')}` }]);
  });
});

describe("the README's comparison", () => {
  it('quotes the steady 10k/s figures of the last full run in docs/BENCHMARKS.md', () => {
    const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
    const results = read('docs/BENCHMARKS.md').split('\n').filter((line) => line.includes('| steady 10k/s |')).map(cells);
    const rowOf = (system: string) => results.find((row) => row[0] === system)!;
    // system | workload | schedule/s | fired/s | late p50 | p99 | max | B/pending | ...
    const [memory, bullmq, engine] = [rowOf('setTimeout (memory)'), rowOf('bullmq'), rowOf('durable-timeout')];
    const readme = read('README.md').split('\n');
    const lateness = cells(readme.find((line) => line.startsWith('| lateness p99'))!);
    const bytes = cells(readme.find((line) => line.startsWith('| Redis bytes per pending'))!);
    expect(lateness.slice(1)).toEqual([`${memory[5]} ms (nothing durable)`, `${bullmq[5]} ms`, `${engine[5]} ms`]);
    expect(bytes.slice(1)).toEqual(['-', bullmq[7], engine[7]]);
  });
});

describe('the documentation and the code', () => {
  /** Every Markdown document (changesets included) and source file of the repository, but dependencies, builds and changelogs. */
  function textFiles(dir = ''): string[] {
    return readdirSync(`${root}${dir}`, { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory()) return (entry.name.startsWith('.') && entry.name !== '.changeset') || ['node_modules', 'dist', 'api-docs', 'coverage'].includes(entry.name) ? [] : textFiles(`${path}/`);
      return /\.(md|ts|mts|cts|js|mjs|cjs|lua|ya?ml)$/.test(entry.name) && entry.name !== 'CHANGELOG.md' ? [path] : [];
    });
  }

  it('speak of the project alone: no numbers of its own issues (other projects\' issues may be cited by their repository)', () => {
    const files = textFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/RELIABILITY.md', 'tools/chaos/src/main.ts']));
    const found = files.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, index) => (/\bissues? #?\d+/i.test(line) && !/\w+\/\w+ issues? #?\d+/i.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
