import { describe, expect, it } from '@jest/globals';
import { asError, toError } from './to-error.js';
import { engineMessages } from '../engine/engine.messages.js';

describe('toError (what a handler, listener or store call threw)', () => {
  it('keeps an Error, and one from another realm, as it is; a string becomes the message', () => {
    const error = new TypeError('boom');
    expect(toError(error, engineMessages.handlerThrewNonError)).toBe(error);
    const foreign = { name: 'Error', message: 'from a vm context' };
    expect(toError(foreign, engineMessages.handlerThrewNonError)).toBe(foreign);
    expect(toError('card declined', engineMessages.handlerThrewNonError).message).toBe('card declined');
  });

  it('names the type of anything else, with the right article, and keeps the value', () => {
    expect(toError(42, engineMessages.handlerThrewNonError).message).toBe('The handler threw a number instead of an Error.');
    expect(toError({ code: 7 }, engineMessages.handlerThrewNonError).message).toBe('The handler threw an object instead of an Error.');
    expect(toError(undefined, engineMessages.handlerThrewNonError).message).toBe('The handler threw an undefined instead of an Error.');
    expect(toError(null, engineMessages.handlerThrewNonError).message).toBe('The handler threw a null instead of an Error.');
    expect((toError(42, engineMessages.handlerThrewNonError) as Error & { thrown?: unknown }).thrown).toBe(42);
  });
});

describe('asError (what a bulk call or a store call failed with)', () => {
  it('keeps an Error, and wraps anything else, an Error-like object too, in an Error of its text', () => {
    const error = new Error('down');
    expect(asError(error)).toBe(error);
    const foreign = { name: 'Error', message: 'from a vm context' };
    expect(asError(foreign)).not.toBe(foreign);
    expect(asError(foreign)).toBeInstanceOf(Error);
    expect(asError(foreign).message).toBe('[object Object]');
    expect(asError('down').message).toBe('down');
    expect(asError(undefined).message).toBe('undefined');
  });
});
