import fc from 'fast-check';
import { modelCommands, TOPIC, type ModelSubject } from './model-commands.js';
import { StoreModel } from './reference-model.js';

/** Opens a fresh, empty subject for one run (its own key prefix or its own memory) and closes it. */
export type ModelSubjectFactory = () => Promise<ModelSubject & { dispose(): Promise<void> }>;

/** How much a model check runs. */
export interface ModelRunOptions {
  /** Sequences to run. */
  runs: number;
  /** Most commands in one sequence. */
  maxCommands: number;
  /** Replays a reported failure: the seed fast-check printed (and its path, to skip straight to the shrunk case). */
  seed?: number;
  path?: string;
}

/** What a model check ran. */
export interface ModelRunFigures {
  runs: number;
  operations: number;
  seed: number;
}

/**
 * Runs random sequences of store calls (schedule, cancel, get, claim, ack, fail, release, replay,
 * purge, time passing, slot migration) against the store and the reference model side by side, and
 * fails on the first answer that differs. A failure names the seed and the shrunk sequence, and
 * `seed` / `path` replay it.
 */
export async function checkStoreAgainstModel(open: ModelSubjectFactory, options: ModelRunOptions): Promise<ModelRunFigures> {
  const seed = options.seed ?? Date.now() ^ (Math.random() * 0x7fffffff);
  let operations = 0;
  let runs = 0;
  const sequences = fc.tuple(fc.constantFrom(1, 2, 4, 8), fc.commands(modelCommands(), { maxCommands: options.maxCommands, size: 'max' }));
  await fc.assert(
    fc.asyncProperty(sequences, async ([slots, commands]) => {
      runs += 1;
      const subject = await open();
      try {
        await subject.store.init([{ name: TOPIC, slots }]);
        await subject.store.layout.claimLayout(TOPIC, slots);
        await fc.asyncModelRun(() => ({ model: new StoreModel(slots), real: subject }), commands);
        operations += [...commands].length;
      } finally {
        await subject.dispose();
      }
    }),
    { numRuns: options.runs, seed, ...(options.path === undefined ? {} : { path: options.path }), endOnFailure: false },
  );
  return { runs, operations, seed };
}
