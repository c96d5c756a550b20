import { InvalidConfigError } from '../errors/invalid-config.error.js';
import { configMessages } from './config.messages.js';

/** The environment as the parsers read it (`process.env` or a plain object in tests). */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Returns a reader of `env` that trims each value and treats a blank one as unset, so a variable
 * set to spaces falls back to its default like a missing one.
 */
export function envReader<Name extends string>(env: Environment): (name: Name) => string | undefined {
  return (name) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
}

/**
 * Parses `raw` as a whole number from `min` to `max` (digits only: no sign, exponent or fraction),
 * or returns `fallback` when unset. Throws `InvalidConfigError` naming `name` otherwise.
 */
export function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const parsed = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidConfigError(configMessages.notAnInteger(name, raw, min, max));
  }
  return parsed;
}

/**
 * Returns the option of `allowed` equal to `raw` in any letter case. Throws `InvalidConfigError`
 * naming `name` and the options when none matches.
 */
export function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const found = allowed.find((option) => option === raw.toLowerCase());
  if (found === undefined) throw new InvalidConfigError(configMessages.notOneOf(name, raw, allowed));
  return found;
}

/**
 * Returns `raw` when it is a `redis://` or `rediss://` URL. Throws `InvalidConfigError` naming
 * `name` otherwise, without repeating the value (it may hold a password).
 */
export function redisUrl(name: string, raw: string): string {
  return urlOf(name, raw, ['redis:', 'rediss:'], configMessages.notARedisUrl);
}

/**
 * Returns `raw` when it is an `http://` or `https://` URL. Throws `InvalidConfigError` naming
 * `name` otherwise, without repeating the value (it may hold a token).
 */
export function httpUrl(name: string, raw: string): string {
  return urlOf(name, raw, ['http:', 'https:'], configMessages.notAnHttpUrl);
}

function urlOf(name: string, raw: string, protocols: readonly string[], message: (name: string) => string): string {
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    throw new InvalidConfigError(message(name));
  }
  if (!protocols.includes(protocol)) throw new InvalidConfigError(message(name));
  return raw;
}

/**
 * Returns `raw` when it is a usable Redis key prefix: 1 to 64 letters, digits, `-`, `_` or `.`
 * (no braces, so it cannot change a key's cluster hash slot). Throws `InvalidConfigError` otherwise.
 */
export function prefix(name: string, raw: string): string {
  if (!/^[\w.-]{1,64}$/.test(raw)) throw new InvalidConfigError(configMessages.badPrefix(name, raw));
  return raw;
}

/**
 * Returns `raw` when it is a secret of at least `minLength` characters, undefined when unset.
 * Throws `InvalidConfigError` naming `name` otherwise, without repeating the value.
 */
export function secret(name: string, raw: string | undefined, minLength: number): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length < minLength) throw new InvalidConfigError(configMessages.tooShortSecret(name, raw.length, minLength));
  return raw;
}
