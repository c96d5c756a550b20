/** Log lines of the engine, in one place. They name topic, id and attempt; never a payload. */
export const engineMessages = {
  handlerFailed: (topic: string, id: string, attempt: number, retryAt: number) =>
    `Handler of topic "${topic}" failed for "${id}" on attempt ${attempt}; retrying at ${new Date(retryAt).toISOString()}.`,
  deadLettered: (topic: string, id: string, attempts: number) =>
    `Handler of topic "${topic}" failed for "${id}" on its last attempt (${attempts}); moved to the dead letters. ` +
    'Inspect with listDead(), then replayDead() or purgeDead().',
  leaseExpired: (topic: string, id: string, attempt: number, retryAt: number) =>
    `The lease of "${id}" (topic "${topic}", attempt ${attempt}) expired before an ack: its worker died, froze or lost ` +
    `Redis for longer than leaseMs (a running handler's lease is renewed). Counted as a failed attempt; ` +
    `retrying at ${new Date(retryAt).toISOString()}.`,
  deadByStore: (topic: string, id: string, reason: string, error: string) =>
    `Timeout "${id}" of topic "${topic}" moved to the dead letters (${reason}): ${error}. ` +
    'Inspect with listDead(), then replayDead() or purgeDead().',
  lateRefused: (topic: string, count: number, afterMs: number, action: 'dead-letter' | 'skip') =>
    `${count} timeout(s) of topic "${topic}" were claimed more than ${afterMs} ms past their due time; ` +
    (action === 'dead-letter'
      ? 'moved to the dead letters (reason "late") by the late policy. Inspect with listDead(), then replayDead() or purgeDead().'
      : 'dropped by the late policy (skip), no handler ran.'),
  topicPaused: (topic: string) => `Topic "${topic}" paused: no instance fires its timeouts until resume(); schedules and cancels go on.`,
  topicResumed: (topic: string, pausedMs: number, shift: boolean, shifted: number) =>
    `Topic "${topic}" resumed after ${pausedMs} ms; ` +
    (shift ? `${shifted} pending due time(s) moved later by the pause.` : 'what fell due meanwhile fires now.'),
  stale: (topic: string, id: string, attempt: number, operation: string) =>
    `The ${operation} of "${id}" (topic "${topic}", attempt ${attempt}) was refused: its lease expired, or it was rescheduled ` +
    'or cancelled meanwhile, so another delivery or call owns it now. A lease ends while a handler runs only when its worker cannot renew ' +
    'it (frozen, overloaded past leaseMs / 2, cut off from Redis): raise leaseMs, or call event.extendLease(ms) before blocking work.',
  released: (topic: string, count: number) =>
    `Released ${count} unfinished timeout(s) of topic "${topic}" on shutdown; another instance fires them now.`,
  storeFailing: (operation: string, cause: string) =>
    `The timeout store failed on "${operation}" (${cause}); retrying with backoff until it answers again.`,
  storeFailingOver: (operation: string, cause: string) =>
    `Redis is failing over: "${operation}" was refused or cut off (${cause}); retrying until the new primary serves.`,
  storeRecovered: () => 'The timeout store answers again; pollers resumed.',
  listenerThrew: (event: string, cause: string) => `A listener of the "${event}" event threw (${cause}); the engine ignored it.`,
  badStoredPayload: (cause: string) =>
    `The stored payload is not valid JSON (${cause}); it was written by something else or edited by hand.`,
  undecodableStoredPayload: (cause: string) => `The stored payload could not be decoded: ${cause}`,
  handlerThrewNonError: (type: string) => `The handler threw ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} instead of an Error.`,
} as const;
