import type { Redis } from 'ioredis';
import { reachRedis } from '../errors/state-unavailable.error.js';
import { RecordExistsError } from '../errors/record-exists.error.js';
import { StoredRecordReader } from './stored-record.reader.js';
import { RecordKeys } from './record-keys.js';
import type { NewRecord, RecordChange, StoredRecord, TransitionOutcome } from './record-change.js';
import { CREATE_RECORD_LUA, TRANSITION_RECORD_LUA } from './record.scripts.js';

/** How `StatusRecords` names and reads its records. */
export interface StatusRecordsOptions<TStatus extends string> {
  /** The app's KEY_PREFIX. */
  prefix: string;
  /** What a record is, in key names and messages: `order`, `trip`. */
  kind: string;
  /** Every status a record may hold, to check what Redis returns. */
  statuses: readonly TStatus[];
  /** Label of this instance, written into each transition it applies (INSTANCE_ID). */
  instance: string | undefined;
}

interface RecordScripts {
  statusRecordCreate(key: string, ...args: string[]): Promise<unknown>;
  statusRecordTransition(numberOfKeys: number, ...keysAndChange: string[]): Promise<unknown>;
}

/**
 * Records with a status (orders, trips) in Redis, shared by every instance of an app. Each write
 * is one Lua script: a record is created once, and each change is a compare-and-set that appends
 * the change to the record's transitions list in the same atomic step. This is what makes a
 * timeout handler idempotent: a second delivery, a stale worker or a timeout that lost the race
 * against a user action finds the record changed and changes nothing.
 */
export class StatusRecords<TStatus extends string, TCause extends string> {
  /** The keys of the records, and of the app's shared hashes. */
  readonly keys: RecordKeys;
  private readonly scripts: RecordScripts;

  constructor(
    private readonly redis: Redis,
    private readonly options: StatusRecordsOptions<TStatus>,
  ) {
    this.keys = new RecordKeys(options.prefix, options.kind);
    redis.defineCommand('statusRecordCreate', { numberOfKeys: 1, lua: CREATE_RECORD_LUA });
    // No fixed key count: a change that claims or releases a resource passes its hash as a third key.
    redis.defineCommand('statusRecordTransition', { lua: TRANSITION_RECORD_LUA });
    this.scripts = redis as unknown as RecordScripts;
  }

  /** Stores a new record; returns its creation and first due times (ms, Redis clock). */
  async create(id: string, record: NewRecord<TStatus>): Promise<{ createdAt: number; dueAt: number }> {
    const reply = await reachRedis(() =>
      this.scripts.statusRecordCreate(
        this.keys.record(id),
        id,
        record.status,
        record.dueField,
        'dueAt' in record.due ? String(record.due.dueAt) : '',
        'delayMs' in record.due ? String(record.due.delayMs) : '0',
        ...Object.entries(record.fields ?? {}).flat(),
      ),
    );
    if (reply === -1) throw new RecordExistsError(this.options.kind, id);
    const [createdAt, dueAt] = reply as [number, number];
    return { createdAt, dueAt };
  }

  /** Reads a record with its transitions in one MULTI (a consistent snapshot), or null. */
  async read(id: string): Promise<StoredRecord | null> {
    const replies = await reachRedis(() =>
      this.redis.multi().hgetall(this.keys.record(id)).lrange(this.keys.transitions(id), 0, -1).exec(),
    );
    if (replies === null) return null;
    const [[hashError, fields], [listError, transitions]] = replies as [
      [Error | null, Record<string, string>],
      [Error | null, string[]],
    ];
    if (hashError) throw hashError;
    if (listError) throw listError;
    if (Object.keys(fields).length === 0) return null;
    return { fields, transitions };
  }

  /** Applies `change` if the record is in one of its `from` statuses and every other guard holds. */
  async transition(id: string, change: RecordChange<TStatus, TCause>): Promise<TransitionOutcome<TStatus>> {
    const keys = [this.keys.record(id), this.keys.transitions(id), ...(change.claims ? [change.claims.key] : [])];
    const script = {
      from: change.from,
      to: change.to,
      by: change.by,
      expect: change.expect,
      deadline: change.deadline,
      claim: change.claims?.take,
      release: change.claims?.release,
      set: change.set === undefined ? undefined : Object.fromEntries(Object.entries(change.set).map(([field, value]) => [field, String(value)])),
      unset: change.unset,
      line: change.line,
      fencingToken: change.delivery?.fencingToken,
      attempt: change.delivery?.attempt,
      instance: this.options.instance || undefined,
    };
    const reply = await reachRedis(() => this.scripts.statusRecordTransition(keys.length, ...keys, JSON.stringify(script)));
    return this.outcome(id, reply);
  }

  private outcome(id: string, reply: unknown): TransitionOutcome<TStatus> {
    if (reply === -1) return { kind: 'not_found' };
    const [code, value] = reply as [number, number | string];
    switch (code) {
      case 1:
        return { kind: 'applied', at: Number(value) };
      case 0:
        return { kind: 'refused', status: new StoredRecordReader(this.options.kind, id, this.options.statuses).status(value) };
      case 2:
        return { kind: 'busy', holder: String(value) };
      case 3:
        return { kind: 'mismatch', field: String(value) };
      default:
        return { kind: 'moved', dueAt: Number(value) };
    }
  }
}
