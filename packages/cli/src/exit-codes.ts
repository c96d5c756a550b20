/**
 * Exit codes of `durable-timeout`. Scripts may rely on them (`durable-timeout --help` lists them, and so docs/CLI.md).
 */
export const EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** An unexpected failure (a bug, or a reply the command could not read). */
  failed: 1,
  /** Bad arguments: unknown command or option, a bad value, a topic whose slot count is unknown. */
  usage: 2,
  /** `inspect`, `cancel`, `dead replay|purge <ids>`: no such timeout (or none of the ids). */
  notFound: 3,
  /** A command that changes data was run without `--yes`: nothing was changed. */
  notConfirmed: 4,
  /** `cancel`: the timeout was firing (a handler held it): removed, and the running handler told to stop. */
  conflict: 5,
  /** Redis could not be reached in time, or refused the login or a command (ACL). */
  unavailable: 6,
} as const;

/** One of `EXIT_CODES`. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
