/** Every error text of the benchmark, built in one place, each saying what to do. */
export const benchMessages = {
  missingValue: (flag: string, usage: string) => `${flag} needs a value, e.g. ${flag} out.json.\n\n${usage}`,
  unknownArgument: (arg: string, usage: string) => `Unknown argument ${arg}; run with --help to see the options.\n\n${usage}`,
  missingInfoField: (section: string, fields: string) =>
    `INFO ${section} has no ${fields} field: the benchmark needs a real Redis 7 server (it starts its own with @durable-timeout/redis-testing).`,
  workerFailed: (detail: string) => `A worker process failed: ${detail}`,
  workerExited: (code: number | null, signal: string | null) =>
    `A worker process exited early (code ${code}, signal ${signal}); its output above says why.`,
  workerSilent: (reply: string, timeoutMs: number) =>
    `A worker process sent no '${reply}' within ${timeoutMs} ms; the machine may be overloaded: run again, or with --quick.`,
  singleServerOnly: (system: string) => `${system} is measured against one Redis server only; run it without a cluster target.`,
  notSoaking: () => 'A soak sample was asked of a worker process that was never armed for a soak: send arm-soak first.',
  soakMinutes: (value: string, usage: string) => `--soak takes a whole number of minutes from 1 to 1440, e.g. --soak 30; got ${value}.\n\n${usage}`,
  soakSystemsOnly: (systems: string) => `--soak runs durable-timeout and BullMQ only; --only may name engine and bullmq, not ${systems}.`,
  schedulesFromMain: () => 'This system schedules from the main process; only in-memory systems schedule inside the worker.',
};
