import { InvalidPayloadError } from '../errors/invalid-payload.error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { PayloadCodec } from '../types.js';
import { encodePayloadText } from './payload-codec.js';

/** Deepest nesting of objects and arrays accepted in a payload. */
export const MAX_PAYLOAD_DEPTH = 64;

/** Keys refused in payloads (and dropped when reading stored ones): the prototype pollution vectors. */
export const FORBIDDEN_PAYLOAD_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Checks that `payload` is plain JSON data that comes back from the store exactly as given, and
 * returns its JSON text. Refused (with `InvalidPayloadError` naming the path): `undefined` anywhere
 * (at the top too: omit the payload instead), functions, symbols and symbol keys, BigInt, NaN and
 * +-Infinity, Dates and every other class instance (Map, Set, Buffer, ...), `__proto__` and
 * `constructor` keys, cycles, nesting deeper than `MAX_PAYLOAD_DEPTH`. Dates are refused rather than
 * turned into ISO text so a handler never receives a string where the caller passed a Date.
 * With a `codec`, returns the encoded text to store instead (see `encodePayloadText`).
 * `PayloadTooLargeError` when what is stored (the UTF-8 JSON text, or the encoded text) exceeds `maxBytes`.
 */
export function serializePayload(payload: unknown, topic: string, maxBytes: number, codec: PayloadCodec | null = null): string {
  let json: string;
  if (payload === null) json = 'null';
  else if (typeof payload === 'string') json = JSON.stringify(payload);
  else {
    new PayloadChecker().check(payload, 0);
    json = JSON.stringify(payload);
  }
  if (codec !== null) {
    // The encoded text is ASCII: one byte a character.
    const stored = encodePayloadText(json, codec);
    if (stored.length > maxBytes) throw new PayloadTooLargeError(topic, stored.length, maxBytes, true);
    return stored;
  }
  // A UTF-16 code unit is at most 3 bytes of UTF-8, so short texts need no byte count.
  if (json.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > maxBytes) throw new PayloadTooLargeError(topic, bytes, maxBytes);
  }
  return json;
}

/** One walk over a payload; the path of keys is kept as a stack and turned into text only for an error. */
class PayloadChecker {
  private readonly path: (string | number)[] = [];
  private readonly ancestors: object[] = [];

  check(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(value)) this.fail(errorMessages.payloadNonFinite(this.where(), value));
        return;
      case 'undefined':
        return this.fail(errorMessages.payloadUndefined(this.where()));
      case 'function':
        return this.fail(errorMessages.payloadFunction(this.where()));
      case 'symbol':
        return this.fail(errorMessages.payloadSymbol(this.where()));
      case 'bigint':
        return this.fail(errorMessages.payloadBigInt(this.where()));
    }
    if (value === null) return;
    const container = value as object;
    if (depth >= MAX_PAYLOAD_DEPTH) this.fail(errorMessages.payloadTooDeep(this.where(), MAX_PAYLOAD_DEPTH));
    if (this.ancestors.includes(container)) this.fail(errorMessages.payloadCycle(this.where()));
    this.ancestors.push(container);
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        this.path.push(i);
        this.check(container[i], depth + 1);
        this.path.pop();
      }
    } else {
      this.checkPlainObject(container as Record<string, unknown>, depth);
    }
    this.ancestors.pop();
  }

  private checkPlainObject(object: Record<string, unknown>, depth: number): void {
    const proto = Object.getPrototypeOf(object) as object | null;
    if (!isPlainPrototype(proto)) {
      if (object instanceof Date) this.fail(errorMessages.payloadDate(this.where()));
      this.fail(errorMessages.payloadNotPlain(this.where(), kindOf(proto)));
    }
    if (Object.getOwnPropertySymbols(object).length > 0) this.fail(errorMessages.payloadSymbolKey(this.where()));
    for (const key of Object.keys(object)) {
      if (FORBIDDEN_PAYLOAD_KEYS.has(key)) this.fail(errorMessages.payloadForbiddenKey(this.where(), key));
      this.path.push(key);
      this.check(object[key], depth + 1);
      this.path.pop();
    }
  }

  private where(): string {
    let text = 'payload';
    for (const step of this.path) {
      if (typeof step === 'number') text += `[${step}]`;
      else if (IDENTIFIER.test(step)) text += `.${step}`;
      else text += `[${JSON.stringify(step.length > 40 ? `${step.slice(0, 40)}...` : step)}]`;
    }
    return text;
  }

  private fail(message: string): never {
    throw new InvalidPayloadError(message, this.where());
  }
}

/** Object.prototype, null, or Object.prototype of another realm (a vm context, a Jest sandbox). */
function isPlainPrototype(proto: object | null): boolean {
  if (proto === null || proto === Object.prototype) return true;
  if (Object.getPrototypeOf(proto) !== null) return false;
  const ctor = (proto as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && ctor.name === 'Object';
}

function kindOf(proto: object | null): string {
  const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'class instance';
}
