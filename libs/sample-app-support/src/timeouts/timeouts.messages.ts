/** Log lines about the apps' timeouts, built in one place. They name topic and id, never a payload. */
export const timeoutsMessages = {
  cancelled: (topic: string, id: string, result: string) => `${topic} timeout of ${id} no longer needed: ${result}`,
  cancelFailed: (topic: string, id: string, reason: string) =>
    `${topic} timeout of ${id} could not be cancelled (${reason}); it will fire and change nothing`,
};
