import { describe, expect, it } from '@jest/globals';
import * as nestCommon from '@nestjs/common';
import * as nestCore from '@nestjs/core';
import * as nestTerminus from '@nestjs/terminus';

/**
 * Guards the compatibility run: scripts/nest11-compat.mjs sets DURABLE_TIMEOUT_EXPECT_NEST=11
 * and maps `@nestjs/*` to a Nest 11 install. Nest 11 is CommonJS (Jest's ESM linker gives it a
 * `default` export); Nest 12 is ESM without one. If the mapping silently failed, this fails.
 */
describe('the Nest under test', () => {
  it('is the major version this run expects', () => {
    const expectNest11 = process.env['DURABLE_TIMEOUT_EXPECT_NEST'] === '11';
    for (const namespace of [nestCommon, nestCore, nestTerminus]) {
      expect({ commonJs: 'default' in namespace }).toEqual({ commonJs: expectNest11 });
    }
  });
});
