import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * The `connection` cannot reach Redis the way it is written: a connection URL that cannot be read
 * (the message names the part and shows the accepted forms), or a plain `redis://` URL pointed at
 * a Redis Cluster node (use `redis+cluster://` or `{ cluster: [...] }`). Nothing was stored.
 */
export class InvalidConnectionError extends DurableTimeoutError {
  constructor(
    message: string,
    /** The connection as given, with any password masked. */
    readonly connection: string,
  ) {
    super(message);
  }
}
