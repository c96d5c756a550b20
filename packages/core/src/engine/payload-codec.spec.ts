import { afterEach, describe } from '@jest/globals';
import { describePayloadCodecScenarios, scenarioSlot } from '../../test/payload-codec.scenarios.js';
import { DurableTimeouts } from '../durable-timeouts.js';
import { ManualClock } from '../testing/manual-clock.js';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';

// The payload codec on the memory store: the same scenarios as on Redis
// (packages/core/e2e/engine-payload-codec.e2e-spec.ts).

const opened: DurableTimeouts[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((timeouts) => timeouts.stop({ drainMs: 0 })));
});

describe('payload codec, memory store', () => {
  describePayloadCodecScenarios(() => {
    const store = new MemoryTimeoutStore(new ManualClock(Date.now()));
    return {
      engine: (options) => {
        const timeouts = new DurableTimeouts({ logger: null, store, topics: options.topics ?? { payment: {} }, codec: options.codec });
        opened.push(timeouts);
        return timeouts;
      },
      rawEntry: async (topic, id) => (await store.reads.get({ topic, slot: scenarioSlot(id) }, id))!.payload,
    };
  });
});
