import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * The `connection` cannot reach Redis the way it is written: a connection URL that cannot be read
 * (the message names the part and shows the accepted forms; `reason` is `'url'`), or a one-server
 * connection pointed at a Redis Cluster node (use `redis+cluster://` or `{ cluster: [...] }`;
 * `reason` is `'cluster-node'`). Nothing was stored.
 */
export class InvalidConnectionError extends DurableTimeoutError {
  constructor(
    message: string,
    /** The connection as given, with any password masked; for `'cluster-node'`, the node's `host:port`. */
    readonly connection: string,
    /** `'url'`: a connection URL that cannot be read; `'cluster-node'`: a one-server connection reached a Cluster node. */
    readonly reason: 'url' | 'cluster-node' = 'url',
  ) {
    super(message);
  }
}
