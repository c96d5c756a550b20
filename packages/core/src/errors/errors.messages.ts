/** Texts of the engine's errors, in one place. Each says what is wrong and what to do. */
export const errorMessages = {
  unknownTopic: (topic: string, known: readonly string[]) =>
    `Unknown topic "${printable(topic)}": this instance knows ${known.length ? known.map((name) => `"${name}"`).join(', ') : 'no topics'}. ` +
    'Add it to the `topics` option of new DurableTimeouts(...).',
  invalidTopicName: (topic: string) =>
    `Invalid topic name "${printable(topic)}": use 1 to 64 characters among letters, digits, ".", "_" and "-".`,

  idNotString: (type: string) => `Invalid timeout id: expected a string, got ${type}. Use a string id such as "order-123".`,
  idEmpty: () => 'Invalid timeout id: it is empty. Use a non-empty string such as "order-123".',
  idNotWellFormed: (index: number) =>
    `Invalid timeout id: it holds a lone UTF-16 surrogate at index ${index}, which has no UTF-8 form (two such ids would ` +
    'become one stored timeout). Use well-formed text, e.g. encode binary ids as hex or base64.',
  idTooLong: (length: number, max: number) =>
    `Invalid timeout id: ${length} characters, the limit is ${max}. Use a shorter id (e.g. a hash of the long one).`,

  timingMissing: () => 'Missing timing: pass exactly one of { delayMs } (from now, Redis clock) or { at } (a Date or ms since the epoch).',
  timingBoth: () => 'Both delayMs and at were given: pass exactly one of them.',
  delayNotNumber: (type: string) => `Invalid delayMs: expected a number of milliseconds, got ${type}.`,
  delayNotFinite: (value: number) => `Invalid delayMs ${value}: use a finite number of milliseconds (0 or more).`,
  delayNegative: (value: number) => `Invalid delayMs ${value}: it is negative. Use 0 to fire as soon as possible.`,
  delayTooLarge: (value: number, max: number) =>
    `Invalid delayMs ${value}: more than ${max} ms (about 10 years). Check the unit (milliseconds) or use an absolute \`at\`.`,
  atInvalid: (shown: string) => `Invalid at ${shown}: use a valid Date or a finite number of milliseconds since the epoch.`,
  atTooFar: (at: number) =>
    `Invalid at ${showTime(at)}: more than about 10 years ahead. Check the value (milliseconds since the epoch, not seconds or microseconds).`,

  payloadUndefined: (path: string) =>
    `${path} is undefined, which JSON cannot carry (it would vanish silently). Omit the payload or the property, or use null.`,
  payloadFunction: (path: string) => `${path} is a function: payloads must be plain JSON data.`,
  payloadSymbol: (path: string) => `${path} is a symbol: payloads must be plain JSON data.`,
  payloadSymbolKey: (path: string) => `${path} has a symbol key, which JSON drops silently: use string keys.`,
  payloadBigInt: (path: string) => `${path} is a BigInt, which JSON cannot carry: convert it to a string (value.toString()).`,
  payloadNonFinite: (path: string, value: number) =>
    `${path} is ${value}, which JSON turns into null: use a finite number, a string or null.`,
  payloadDate: (path: string) =>
    `${path} is a Date: payloads keep plain JSON only, so a Date would come back as a string. Pass date.toISOString() or date.getTime().`,
  payloadNotPlain: (path: string, kind: string) =>
    `${path} is an instance of ${kind}, not a plain object or array: convert it to plain JSON data (e.g. Object.fromEntries(map), [...set]).`,
  payloadForbiddenKey: (path: string, key: string) =>
    `${path} has the key "${key}", which is refused to keep handlers safe from prototype pollution: rename it.`,
  payloadCycle: (path: string) => `${path} refers back to one of its parents (a cycle): payloads must be a tree of plain JSON data.`,
  payloadTooDeep: (path: string, max: number) => `${path} is nested more than ${max} levels deep: flatten the payload.`,
  payloadTooLarge: (topic: string, bytes: number, limit: number, encoded: boolean) =>
    `Payload of topic "${topic}" is ${bytes} bytes ${encoded ? 'once encoded by its codec' : 'of JSON'}, over its maxPayloadBytes ${limit}. ` +
    'Store the data elsewhere and put its key in the payload, or raise maxPayloadBytes for the topic.',
  payloadDecode: (topic: string, id: string, cause: string) =>
    `The stored payload of timeout "${printable(id)}" of topic "${topic}" could not be decoded: ${cause}`,
  payloadEncodedNoCodec: () =>
    'it was encoded by a codec, and this topic has none configured. Configure the codec (and keys) the payload was written with.',
  payloadNotBase64: () => 'its encoded text is not base64; it was written by something else or edited by hand.',
  payloadCodecThrew: (message: string) => `the codec refused it (${message}).`,
  payloadNotUtf8: () => 'the codec gave back bytes that are not UTF-8 text; it is not the codec the payload was written with.',
  payloadNotJson: (message: string) => `the decoded text is not JSON (${message}); it is not the codec the payload was written with.`,
  codecNotObject: (where: string) => `Invalid ${where}: use an object with encode(bytes) and decode(bytes) methods, such as aesGcmCodec({ keys, currentKeyId }).`,
  codecKeysMissing: () => 'aesGcmCodec: `keys` must be an object of key id to key (32 bytes, as a Uint8Array or base64 text) with at least one key.',
  codecKeyId: (keyId: string) =>
    `aesGcmCodec: key id "${printable(keyId)}" is not usable: use 1 to 255 bytes of UTF-8 text (e.g. "2026-01").`,
  codecKeyLength: (keyId: string, bytes: number) =>
    `aesGcmCodec: key "${printable(keyId)}" is ${bytes} bytes; AES-256 needs 32 bytes (e.g. crypto.randomBytes(32), or 44 characters of base64).`,
  codecKeyType: (keyId: string, type: string) =>
    `aesGcmCodec: key "${printable(keyId)}" is ${type}; use a Uint8Array (Buffer) of 32 bytes or its base64 text.`,
  // What aesGcmCodec's decode throws: each names the problem, never the payload or a key.
  codecNotOurs: () => 'aesGcmCodec: not an aesGcmCodec payload (unknown format version)',
  codecTruncated: () => 'aesGcmCodec: the encrypted payload is truncated',
  codecUnknownKey: (keyId: string, known: readonly string[]) =>
    `aesGcmCodec: encrypted with key id "${printable(keyId)}", which is not among the keys (${known.map((id) => `"${printable(id)}"`).join(', ')}); add that key to decode it`,
  codecAuthFailed: (keyId: string) =>
    `aesGcmCodec: authentication failed for key id "${printable(keyId)}": the key is not the one the payload was encrypted with, or the stored bytes were altered`,
  codecCurrentKey: (keyId: unknown, known: readonly string[]) =>
    `aesGcmCodec: currentKeyId ${typeof keyId === 'string' ? `"${printable(keyId)}"` : String(keyId)} is not among the keys (${known.map((id) => `"${printable(id)}"`).join(', ')}): ` +
    'name the key new payloads are encrypted with.',

  stopped: (operation: string) =>
    `Cannot call ${operation}(): this DurableTimeouts instance was stopped. Create a new instance to keep working.`,
  duplicateHandler: (topic: string) =>
    `Topic "${topic}" already has a handler in this instance: register exactly one handler per topic.`,
  schedulesTopicMissing: (operation: string) =>
    `Cannot call ${operation}(): recurring schedules live in the topic "schedules", which this instance does not configure. ` +
    'Add it to the topics option (e.g. topics: { schedules: {} }) on every instance that upserts or handles schedules.',
  handlerNotFunction: (topic: string, type: string) => `The handler of topic "${topic}" must be a function, got ${type}.`,

  slotsMismatch: (topic: string, configured: number, recorded: string) =>
    `Topic "${topic}" is configured with ${configured} slots, but its timeouts are stored with ${recorded.replace('>', ' (moving to ')}` +
    `${recorded.includes('>') ? ')' : ''} slots. Starting would miss timeouts or fire them twice. Set topics.${topic}.slots back to ` +
    `${recorded.split('>').at(-1)}, or move the stored timeouts first: timeouts.migrateSlots('${topic}', ${configured}) ` +
    `(or \`durable-timeout migrate-slots ${topic} ${configured}\`), which is safe while instances run.`,
  topicMigrating: (topic: string, slots: number, waitedMs: number) =>
    `A slot of topic "${topic}" is being moved to ${slots} slots; waited ${Math.round(waitedMs)} ms for it. Retry the call ` +
    '(schedule is an upsert). If this persists, a migration stopped half-way: run migrateSlots again to finish it.',
  otherMigrationRunning: (topic: string, from: number, running: number, asked: number) =>
    `Topic "${topic}" is already being moved from ${from} to ${running} slots; a move to ${asked} cannot start before it ends. ` +
    `Finish it first (migrateSlots('${topic}', ${running}), which resumes it), then move to ${asked}.`,
  invalidSlotCount: (topic: string, slots: unknown) =>
    `Invalid slot count ${String(slots)} for topic "${topic}": use a power of two from 1 to 1024.`,

  bulkNotArray: (operation: string, type: string) => `${operation}() needs an array of items, got ${type}.`,
  bulkTooMany: (operation: string, count: number, max: number) =>
    `${operation}() got ${count} items, the limit is ${max} a call: split them into several calls.`,
  bulkItemNotObject: (operation: string, index: number) =>
    `${operation}() item ${index} is not an object: pass { id, delayMs | at, payload?, ifExists? }.`,

  leaseStale: (topic: string, id: string, attempt: number) =>
    `The lease of "${id}" (topic "${topic}", attempt ${attempt}) could not be renewed: a newer delivery or schedule owns the ` +
    'timeout now (its fencing token is stale). Stop the work: its ack will be refused.',
  leaseUnrenewed: (topic: string, id: string, attempt: number) =>
    `The lease of "${id}" (topic "${topic}", attempt ${attempt}) ended before it could be renewed (the store did not answer): ` +
    'another instance may run the timeout now. Stop the work.',
  cancelledWhileRunning: (topic: string, id: string, attempt: number) =>
    `Timeout "${id}" (topic "${topic}", attempt ${attempt}) was cancelled while its handler ran: it is removed and will not ` +
    'run again. Stop the work and skip side effects not yet made; whatever the handler does next is not recorded.',
  deliveryEnded: (topic: string, id: string, attempt: number) =>
    `extendLease() on "${id}" (topic "${topic}", attempt ${attempt}) after its delivery ended (acked, failed, released or timed out): nothing to extend.`,
  extendLeaseMs: (value: unknown) =>
    `Invalid extendLease(${typeof value === 'number' ? value : typeof value}): use a whole number of milliseconds from 1 to 86,400,000.`,
  handlerTimedOut: (topic: string, id: string, attempt: number, maxRunMs: number) =>
    `The handler of "${id}" (topic "${topic}", attempt ${attempt}) ran longer than maxRunMs (${maxRunMs} ms): counted as a failed ` +
    'attempt. Make the handler return sooner (honour event.signal), or raise the topic\'s maxRunMs.',

  optionsNotObject: () => 'new DurableTimeouts(options) needs an options object with at least `topics`.',
  noTopics: () => 'Option `topics` must be an object with at least one topic, e.g. { topics: { payment: {} } }.',
  invalidOption: (name: string, value: unknown, expected: string) => `Invalid option ${name} = ${show(value)}: ${expected}.`,
  unknownOption: (name: string, known: readonly string[]) => `Unknown option ${name}: the accepted ones are ${known.join(', ')}.`,
} as const;

/** Shows a value in a message without dumping objects (they might hold payload data). */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** A time as ISO text when Date can show it, else the raw number. */
function showTime(ms: number): string {
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

/** A caller-provided name cut to a readable length. */
function printable(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
