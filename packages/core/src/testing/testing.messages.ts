/** Texts of the errors of the testing helpers, in one place. */
export const testingMessages = {
  invalidStep: (ms: number) =>
    `ManualClock.advanceBy(${ms}): use a finite number of milliseconds >= 0 (the clock never goes back).`,
  invalidTime: (ms: number) => `ManualClock.set(${ms}): use a finite number of milliseconds since the epoch.`,
  backwards: (ms: number, now: number) =>
    `ManualClock.set(${ms}) is before the clock's current time ${now}: a store clock never goes back, ` +
    'like the Redis server clock the engine relies on. Create a new ManualClock to start over.',
  closed: () => 'The in-memory timeout store was closed; create a new one.',
  slotMoved: (slots: number) => `The slot was moved by a change of the topic's slot count: route the id by ${slots} slots.`,
  slotLocked: (slots: number) => `A change of the topic's slot count to ${slots} is moving this slot's timeouts; call again shortly.`,
} as const;
