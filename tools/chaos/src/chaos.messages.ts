/** Every error text of the chaos suite, each saying what to do. */
export const chaosMessages = {
  usage: () => 'usage: npm run chaos -- [--quick] [--model] [--only name,name] [--json FILE]',
  missingValue: (flag: string) => `${flag} needs a value. ${chaosMessages.usage()}`,
  unknownArgument: (arg: string) => `Unknown argument ${arg}. ${chaosMessages.usage()}`,
  unknownScenario: (names: readonly string[], known: readonly string[]) =>
    `Unknown scenario ${names.join(', ')}; pick among: ${known.join(', ')}.`,
  workerWithoutConfig: () =>
    'CHAOS_WORKER_CONFIG is not set: this file is a worker of the chaos suite; run `npm run chaos` instead of starting it by hand.',
  plannedFailure: (attempt: number) => `chaos: planned failure of attempt ${attempt} (the scenario asked this handler to fail)`,
  notResp: (offset: number, typeByte: string) =>
    `Not a RESP value at byte ${offset} (type byte ${JSON.stringify(typeByte)}): the proxy only sits in front of a Redis server.`,
  notCommandArray: (offset: number) => `Expected a command array at byte ${offset}: the proxy only serves RESP clients such as ioredis.`,
  proxyWithoutPort: (name: string) => `The ${name} proxy got no TCP port from the system; check that loopback networking is available.`,
  workerExitedBeforeReady: (label: string, code: number | null, signal: string | null) =>
    `Worker ${label} exited before it was ready (code ${code}, signal ${signal}); its output is in the scenario's log lines (often: Redis unreachable, or the build is stale: run npm run build).`,
  workerExited: (label: string) => `Worker ${label} exited before it answered; the scenario killed it or it crashed.`,
  unexpectedWorkerReply: (label: string, type: string) => `Worker ${label} answered ${type} to a counters request; rebuild the suite (npm run build).`,
  noLiveWorker: () => 'No live worker to act on: every worker of the scenario has exited; see its log lines.',
};
