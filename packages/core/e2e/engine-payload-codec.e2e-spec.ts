import { describe } from '@jest/globals';
import type { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import { describePayloadCodecScenarios, scenarioSlot } from '../test/payload-codec.scenarios.js';
import { TimeoutKeys } from '../src/store/timeout-keys.js';
import { uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

// The payload codec on a real Redis: what Redis holds is read straight from its keys, so a
// plaintext payload anywhere in the stored value fails the scenarios. The memory store runs the
// same scenarios in the unit project (packages/core/src/engine/payload-codec.spec.ts).

let server: RedisServer;
let raw: Redis;
const rig = engineSuite(() => RedisServer.start(), (started) => {
  server = started;
  raw = started.client();
});

describe('payload codec, Redis store', () => {
  describePayloadCodecScenarios(() => {
    const prefix = uniquePrefix();
    const keys = new TimeoutKeys(prefix);
    return {
      engine: (options) => rig.open({ connection: server.url, prefix, topics: options.topics ?? { payment: {} }, codec: options.codec }),
      rawEntry: async (topic, id) => (await raw.hget(keys.dataKey(topic, scenarioSlot(id), id), id)) ?? '',
    };
  });
});
