import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import type { TimeoutStore } from '../src/store/timeout-store.js';
import type { ConnectionOptions } from '../src/types.js';
import type { StoreContractContext } from './timeout-store.contract.js';

/**
 * A contract-suite context on real Redis: Redis stores with `prefix` on `connection` (one server,
 * or `{ cluster }`), a peer store on the same keys for the multi-instance cases, the real clock, and
 * every store opened closed at the end.
 */
export function redisContractContext(connection: ConnectionOptions, prefix: string): StoreContractContext {
  const opened: TimeoutStore[] = [];
  const open = () => {
    const store = new RedisTimeoutStore({ connection, prefix });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    openPeer: async () => open(),
    advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    dispose: async () => {
      await Promise.all(opened.map((store) => store.close()));
    },
  };
}
