/** Text of the errors about reaching Redis, built in one place. */
export const redisMessages = {
  stateUnavailable: (reason: string) =>
    `Redis, which holds the app's records, did not answer (${reason}). The request may not have been applied; check with a GET and retry in a moment.`,
  timeoutsUnavailable: () =>
    'Redis, which holds the timeouts, did not answer. Nothing was created; retry in a moment.',
  shuttingDown: () => 'This instance is shutting down and takes no new work. Retry the request: another instance will serve it.',
  connectionLost: (reason: string) =>
    `Redis holding the app's records is unreachable (${reason}); requests that need it answer 503 until it is back. Reconnecting.`,
  connectionBack: () => "Redis holding the app's records is reachable again.",
};
