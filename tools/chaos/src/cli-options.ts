import { chaosMessages } from './chaos.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

/** Options of `npm run chaos`. */
export interface ChaosOptions {
  quick: boolean;
  /** Scenario names to run; empty: all. */
  only: string[];
  /** Where to write the JSON report. */
  jsonFile: string | undefined;
  /** Also run the long model-based check of the stores. */
  model: boolean;
}

/** Parses the command line (without `node` and the script). Throws with the usage on a bad argument. */
export function parseOptions(argv: readonly string[], known: readonly string[]): ChaosOptions {
  const options: ChaosOptions = { quick: false, only: [], jsonFile: undefined, model: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new HarnessError('usage', chaosMessages.missingValue(flag));
      return next;
    };
    if (flag === '--quick') options.quick = true;
    else if (flag === '--only') options.only.push(...value().split(',').map((name) => name.trim()).filter(Boolean));
    else if (flag === '--json') options.jsonFile = value();
    else if (flag === '--model') options.model = true;
    else throw new HarnessError('usage', chaosMessages.unknownArgument(arg));
  }
  const unknown = options.only.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new HarnessError('usage', chaosMessages.unknownScenario(unknown, known));
  return options;
}
