import { Redis } from 'ioredis';

let sent = 0;
let installed = false;

/**
 * Counts the commands this process's ioredis clients write to Redis (engine, BullMQ, polling, and
 * the harness's own admin calls alike: read it around the part you measure). A script call counts
 * once, the commands it runs inside Redis not at all; each command of a pipeline counts. Every
 * command passes through `Redis.prototype.sendCommand` (a Cluster hands it to a node's client), so
 * wrapping it costs one increment per command, unlike ioredis' tracing channel, which would wrap
 * every command's promise in the processes being measured.
 */
export function redisCallsSent(): number {
  if (!installed) {
    installed = true;
    const original = Redis.prototype.sendCommand;
    Redis.prototype.sendCommand = function countedSendCommand(this: Redis, ...args: Parameters<typeof original>) {
      // A command queued while the connection is not ready passes here again when it is written.
      if (this.status === 'ready') sent++;
      return original.apply(this, args);
    };
  }
  return sent;
}
