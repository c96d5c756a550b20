/// <reference types="jest" />
import type { StoreContractContext } from './timeout-store.contract.js';

/**
 * The frame of a contract suite: before each test a fresh context from `makeContext` whose store
 * knows `topics` (handed to `use`), disposed after it.
 */
export function storeContractFrame(
  makeContext: () => Promise<StoreContractContext>,
  use: (context: StoreContractContext) => void,
  topics: { name: string; slots: number }[] = [{ name: 'payment', slots: 16 }],
): void {
  let context: StoreContractContext | undefined;
  beforeEach(async () => {
    context = await makeContext();
    use(context);
    await context.store.init(topics);
  });
  afterEach(async () => {
    await context?.dispose();
  });
}
