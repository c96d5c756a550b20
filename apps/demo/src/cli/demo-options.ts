import { parseArgs } from 'node:util';
import { DemoMessages } from '../demo.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

/** What the demo was asked to do. */
export interface DemoOptions {
  /** Orders placed per mode. */
  orders: number;
  /** PAYMENT_TIMEOUT_MS of the orders app. */
  timeoutMs: number;
  /** Where to write the figures as JSON, if anywhere. */
  jsonFile: string | undefined;
  help: boolean;
}

/** Defaults: a few hundred orders on a 4 s payment timeout keeps both modes well under 90 s. */
export const DEFAULT_OPTIONS = { orders: 300, timeoutMs: 4000 } as const;

const LIMITS = {
  orders: { min: 10, max: 5000 },
  'timeout-ms': { min: 2000, max: 30_000 },
} as const;

/** Parses the demo's command-line flags (without `node` and the script); throws a `usage` `HarnessError`. */
export function parseDemoOptions(argv: string[]): DemoOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        orders: { type: 'string' },
        'timeout-ms': { type: 'string' },
        json: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new HarnessError('usage', DemoMessages.badFlag(error instanceof Error ? error.message : String(error)));
  }
  const json = values.json;
  if (json === '') throw new HarnessError('usage', DemoMessages.badFlag('--json needs a file name.'));
  return {
    orders: integerFlag('orders', values.orders, DEFAULT_OPTIONS.orders),
    timeoutMs: integerFlag('timeout-ms', values['timeout-ms'], DEFAULT_OPTIONS.timeoutMs),
    jsonFile: typeof json === 'string' ? json : undefined,
    help: values.help === true,
  };
}

function integerFlag(flag: keyof typeof LIMITS, raw: string | boolean | undefined, fallback: number): number {
  if (raw === undefined || typeof raw === 'boolean') return fallback;
  const { min, max } = LIMITS[flag];
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new HarnessError('usage', DemoMessages.notAnInteger(flag, raw, min, max));
  }
  return value;
}
