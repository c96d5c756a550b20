/** Texts of the admin module's errors and page, built in one place. */
export const adminMessages = {
  notProtected: (): string =>
    'DurableTimeoutAdminModule refuses to mount without protection: it shows and changes your timeouts. ' +
    'Pass `guard` (your own CanActivate, e.g. the guard of your admin users) or `token` (a secret of at least ' +
    `${MIN_TOKEN_LENGTH} characters, asked for with HTTP Basic or Bearer authentication), or both.`,
  shortToken: (length: number): string =>
    `The admin token has ${length} characters: use at least ${MIN_TOKEN_LENGTH} (e.g. \`openssl rand -hex 24\`), from your secrets, never from code.`,
  badPath: (path: unknown): string =>
    `Invalid admin path ${JSON.stringify(path)}: use a route path such as 'timeouts' or 'admin/timeouts' (letters, digits, '-', '_', '/').`,
  badPageSize: (value: unknown): string => `Invalid pageSize ${JSON.stringify(value)}: use a whole number from 1 to 200.`,
  unauthorized: (): string => 'The durable-timeout admin page needs its token (HTTP Basic password, or Authorization: Bearer).',
  missingCsrfHeader: (header: string): string =>
    `Changes need the request header ${header}: 1 (the page's script sends it), so that another site cannot make a browser send them.`,
  badShift: (): string => 'Invalid body: send { "shift": true } to move pending due times later by the pause, or {} to fire what fell due.',
  badIds: (): string => 'Invalid body: send { "ids": ["id", ...] } (at most 1,000 ids), or {} for every dead letter.',
  badInteger: (name: string, value: string): string => `Invalid ${name} ${JSON.stringify(value)}: use a whole number.`,
  noSchedules: (topic: string): string =>
    `No recurring schedules here: this application does not declare the topic ${JSON.stringify(topic)} they live in.`,
  // An operator typing a URL: a typo is likelier than a missing topic, and the fix of one is in the
  // application's code (forRoot or forFeature topics), not in this request.
  unknownTopic: (topic: string, known: readonly string[]): string =>
    `No topic ${JSON.stringify(topic)} here: this application has ${known.length ? known.map((name) => JSON.stringify(name)).join(', ') : 'no topics'}.`,
};

/** Shortest token accepted: a guessable secret protects nothing. */
export const MIN_TOKEN_LENGTH = 16;
