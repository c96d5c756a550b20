import { benchMessages } from './bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

/** Options of `npm run bench -- [options]`. */
export interface BenchOptions {
  /** Shorter workloads, the whole run under a minute. */
  quick: boolean;
  /** Where to write the JSON report, if anywhere. */
  jsonFile: string | undefined;
  /** Where to write the Markdown tables, if anywhere. */
  markdownFile: string | undefined;
  /** Directory for the SVG charts (lateness distributions, CPU by rate), if any. */
  svgDir: string | undefined;
  /** Directory for CPU profiles (V8 `.cpuprofile`) of the engine's worker process over the firing window, if any. */
  profileDir: string | undefined;
  /** `--soak MINUTES`: run the soak (durable-timeout, then BullMQ, each this many minutes) instead of the benchmark. */
  soakMinutes: number | undefined;
  /** Run only the systems whose key is listed (all when empty). */
  only: string[];
  help: boolean;
}

/** What `--help` prints. */
export const USAGE = [
  'npm run bench -- [--quick] [--json FILE] [--markdown FILE] [--svg DIR] [--profile DIR] [--only engine,bullmq,...]',
  'npm run bench -- --soak MINUTES [--quick] [--json FILE] [--svg DIR] [--only engine|bullmq]',
  '',
  '  --quick          shorter workloads (1 s windows, 10k burst): the whole run in under a minute',
  '  --json FILE      write every figure of the table to FILE: { quick, environment, runs: [...], idle: {...} }',
  '  --markdown FILE  write the result tables as Markdown to FILE',
  '  --svg DIR        write charts to DIR: lateness-<workload>.svg (lateness CDF of every system, log axis) and',
  '                   cpu-by-rate.svg (worker and Redis CPU per fired timeout of durable-timeout and BullMQ by steady rate)',
  '  --profile DIR    CPU-profile the engine worker while it fires; write .cpuprofile files and a summary to DIR',
  '  --only LIST      systems to run: engine, nest, bullmq, memory, polling, cluster, idle, metrics, scheduling, durability, redis-cpu,',
  '                   rate-limit (CPU per fired timeout of the burst with a rateLimit never reached against none, alternated)',
  '  --soak MINUTES   instead of the benchmark: durable-timeout, then BullMQ, each MINUTES at 2,000 fired timeouts/s, orders',
  '                   mixed like the orders app: 5,000 orders/s each schedule a payment timeout due in 5 s; of every 10,',
  '                   6 are paid after 2.5 s (timeout cancelled), 1 is moved 5 s later after 2.5 s (scheduled again), 3 fire.',
  '                   Samples worker heap and RSS and Redis used_memory every 10 s: growth per hour with a verdict,',
  '                   lateness p99 per minute, CPU per fired timeout beside the short steady 2k/s run (run first,',
  '                   the quick one with --quick); --json FILE holds every figure and sample, --svg DIR draws',
  '                   soak-memory.svg (the three memory figures over time)',
].join('\n');

/** Parses the command line (the part after the script). Throws with a usage hint on a bad argument. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { quick: false, jsonFile: undefined, markdownFile: undefined, svgDir: undefined, profileDir: undefined, soakMinutes: undefined, only: [], help: false };
  const valueOf = (i: number, flag: string): string => {
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new HarnessError('usage', benchMessages.missingValue(flag, USAGE));
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const take = (): string => inline ?? valueOf(i++, flag);
    switch (flag) {
      case '--quick':
        options.quick = true;
        break;
      case '--json':
        options.jsonFile = take();
        break;
      case '--markdown':
        options.markdownFile = take();
        break;
      case '--svg':
        options.svgDir = take();
        break;
      case '--profile':
        options.profileDir = take();
        break;
      case '--soak': {
        const value = take();
        const minutes = Number(value);
        if (!/^\d+$/.test(value) || minutes < 1 || minutes > 1_440) throw new HarnessError('usage', benchMessages.soakMinutes(value, USAGE));
        options.soakMinutes = minutes;
        break;
      }
      case '--only':
        options.only = take().split(',').map((s) => s.trim()).filter(Boolean);
        break;
      case '--help':
      case '-h':
        options.help = true;
        break;
      default:
        throw new HarnessError('usage', benchMessages.unknownArgument(arg, USAGE));
    }
  }
  const others = options.only.filter((key) => key !== 'engine' && key !== 'bullmq');
  if (options.soakMinutes !== undefined && others.length > 0) throw new HarnessError('usage', benchMessages.soakSystemsOnly(others.join(', ')));
  return options;
}
