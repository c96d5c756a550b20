/** Texts of the command line's errors and confirmations, in one place. Each says what to do. */
export const cliMessages = {
  notInteger: (flag: string, value: string, min: number, max: number) =>
    `${flag} ${JSON.stringify(value)} is not a whole number from ${min} to ${max}.`,
  badSlots: (value: string) => `--slots ${JSON.stringify(value)}: use the topic's slot count, a power of two from 1 to 1024 (the engine's default is 16).`,
  noRegistry: (registryKey: string) =>
    `There is no topic registry at ${registryKey} (engines write it on first use), so the topics are unknown. ` +
    'Name a topic and its slot count: durable-timeout stats <topic> --slots <n>. Check --prefix too.',
  topicNotRegistered: (topic: string, registryKey: string, known: readonly string[]) =>
    `Topic ${JSON.stringify(topic)} is not in the topic registry ${registryKey}` +
    (known.length > 0 ? ` (it holds ${known.map((name) => JSON.stringify(name)).join(', ')})` : ' (it is empty or absent)') +
    '. Pass its slot count with --slots <n> (the `slots` option of the topic, default 16), or check --prefix.',
  slotsDisagree: (topic: string, given: number, registered: number, registryKey: string) =>
    `--slots ${given} disagrees with the registry ${registryKey}, which gives ${JSON.stringify(topic)} ${registered} slots. ` +
    'Drop --slots: reading a topic with the wrong slot count misses most of its timeouts.',
  badRegistryEntry: (topic: string, value: string, registryKey: string) =>
    `The registry ${registryKey} gives topic ${JSON.stringify(topic)} the slot count ${JSON.stringify(value)}, which is not a power of two from 1 to 1024. ` +
    'Pass the right count with --slots <n> and repair the registry entry.',
  cannotConnect: (url: string, timeoutMs: number, cause: string) =>
    `Could not reach Redis at ${url} within ${timeoutMs} ms: ${cause}. ` +
    'Check --url (or REDIS_URL), --cluster or --sentinel, the user and password, --tls, and that the servers are up.',
  oneConnection: (first: string, second: string) =>
    `${first} and ${second} both say where Redis is: give one of them (--url, --cluster host:port,... or --sentinel host:port,... --name NAME).`,
  clusterNode: (node: string) =>
    `Redis at ${node} is a node of a Redis Cluster, but the URL (--url or REDIS_URL) is for one server. ` +
    `Connect to the Cluster: --cluster ${node} (two or three nodes, comma-separated), or --url redis+cluster://${node} ` +
    '(REDIS_URL takes the same; --tls or rediss+cluster:// for TLS).',
  sentinelWithoutName: () => '--sentinel needs --name, the master name the sentinels monitor (e.g. --name mymaster).',
  nameWithoutSentinel: () => '--name is the master name of a Sentinel set-up: give --sentinel host:port,... with it.',
  refused: (cause: string, prefix: string) =>
    `Redis refused a command: ${cause}. The user needs the rules of aclRulesFor(${JSON.stringify(prefix)}) from @durable-timeout/core: https://github.com/durable-timeout/durable-timeout/blob/main/docs/OPERATING.md#least-privilege`,
  loginRefused: (url: string, cause: string) =>
    `Redis at ${url} refused the login: ${cause}. Check the user and password (--user, --password or REDIS_PASSWORD, or the URL).`,
  unavailable: (cause: string) => `Redis did not answer in time: ${cause}. Retry, or raise --timeout.`,
  timeoutNotFound: (topic: string, id: string) => `No timeout ${JSON.stringify(id)} in topic ${JSON.stringify(topic)} (not pending, firing nor dead).`,
  notPendingAnyMore: (topic: string, id: string) =>
    `No pending timeout ${JSON.stringify(id)} in topic ${JSON.stringify(topic)}: it already fired, was cancelled, or never existed.`,
  firing: (topic: string, id: string) =>
    `Timeout ${JSON.stringify(id)} of ${JSON.stringify(topic)} was firing: it is removed, and the handler running it was told to stop ` +
    '(its event.signal aborts with TimeoutCancelledError). What the handler already did stays done.',
  noDeadLetters: (topic: string, ids: readonly string[]) =>
    `None of ${ids.map((id) => JSON.stringify(id)).join(', ')} is a dead letter of ${JSON.stringify(topic)}. Nothing was changed.`,
  confirmCancel: (topic: string, id: string) =>
    `This cancels timeout ${JSON.stringify(id)} of ${JSON.stringify(topic)}: it will never fire. Run again with --yes to do it.`,
  confirmReplay: (topic: string, ids: readonly string[]) =>
    `This puts ${describeIds(ids)} of ${JSON.stringify(topic)} back as due now: their handlers run again. Run again with --yes to do it.`,
  confirmPurge: (topic: string, ids: readonly string[]) =>
    `This deletes ${describeIds(ids)} of ${JSON.stringify(topic)} for good. Run again with --yes to do it.`,
  confirmMigrate: (topic: string, from: number, to: number) =>
    `This moves every timeout of ${JSON.stringify(topic)} from ${from} to ${to} slots while your services run (calls on a slot ` +
    'being moved wait a moment). Run again with --yes to do it; then deploy the new slots option.',
  confirmPause: (topic: string) =>
    `This pauses ${JSON.stringify(topic)}: no instance fires its timeouts until you resume it. Run again with --yes to do it.`,
  confirmResume: (topic: string, shift: boolean) =>
    `This resumes ${JSON.stringify(topic)}: ${shift ? 'every pending due time moves later by the length of the pause' : 'what fell due meanwhile fires now'}. ` +
    'Run again with --yes to do it.',
  payloadHidden: () => '(hidden: add --show-payloads)',
  payloadEncrypted: () => '(encrypted: encoded by a codec the CLI cannot decode)',
};

function describeIds(ids: readonly string[]): string {
  return ids.length === 0 ? 'every dead letter' : `the dead letters ${ids.map((id) => JSON.stringify(id)).join(', ')}`;
}
