import { cliMessages } from '../cli.messages.js';
import { oneLine } from './format.js';
import { renderTable, type Column } from './table.js';

/** Where a command writes: standard output and standard error, as raw text. */
export interface CliIo {
  /** Writes a command's result (standard output). */
  out(text: string): void;
  /** Writes an error or a progress line (standard error). */
  err(text: string): void;
}

/** Writes a command's result: as JSON (`--json`, for scripts) or as text for people. */
export class Output {
  constructor(
    private readonly io: CliIo,
    /** Whether `--json` was given. */
    readonly json: boolean,
  ) {}

  /** Writes `data` as JSON, or what `human` renders from it. */
  result<T>(data: T, human: (data: T) => string): void {
    this.io.out(`${this.json ? JSON.stringify(data, null, 2) : human(data)}\n`);
  }

  /** A progress line of a long command, on standard error so that standard output keeps only the result. */
  progress(line: string): void {
    this.io.err(`${line}\n`);
  }

  /**
   * Writes a list of timeouts or dead letters: as JSON, or as a table of `cells` per record; the
   * payloads (in a last column, or in the JSON) only when `showPayloads`.
   */
  records<T extends { payload: unknown; payloadError?: string }>(records: readonly T[], showPayloads: boolean, columns: readonly Column[], cells: (record: T) => string[]): void {
    this.result(
      records.map((record) => withPayload(record, showPayloads)),
      () =>
        renderTable(
          [...columns, ...(showPayloads ? [{ header: 'payload' }] : [])],
          records.map((record) => [...cells(record), ...(showPayloads ? [oneLine(payloadText(record), 80)] : [])]),
        ),
    );
  }
}

/** A copy of a record without its payload, unless payloads are to be shown (they may hold personal data). */
export function withPayload<T extends { payload: unknown }>(record: T, show: boolean): T | Omit<T, 'payload'> {
  if (show) return record;
  const { payload: _hidden, ...rest } = record;
  return rest;
}

/**
 * A record's payload as one line of JSON text; `(encrypted: ...)` for one the CLI cannot decode
 * (encoded by a codec, see docs/ENGINE.md "Encoded payloads": the CLI has no keys).
 */
export function payloadText(record: { payload: unknown; payloadError?: string }): string {
  if (record.payloadError !== undefined) return cliMessages.payloadEncrypted();
  return JSON.stringify(record.payload) ?? 'null';
}
