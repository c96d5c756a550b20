import { describe, expect, it } from '@jest/globals';
import { isUUID } from 'class-validator';
import { tripIdFor } from './trip-request-id.js';

describe('tripIdFor', () => {
  it('names the same trip for a retried request, and a valid version 5 UUID', () => {
    const id = tripIdFor('rider-1', 'request-42');
    expect(tripIdFor('rider-1', 'request-42')).toBe(id);
    expect(isUUID(id, '5')).toBe(true);
  });

  it('names different trips for another key or another rider with the same key', () => {
    const ids = new Set([tripIdFor('rider-1', 'request-42'), tripIdFor('rider-1', 'request-43'), tripIdFor('rider-2', 'request-42'), tripIdFor('rider-1r', 'equest-42')]);
    expect(ids.size).toBe(4);
  });
});
