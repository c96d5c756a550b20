import { createServer, type Server, type Socket } from 'node:net';
import { HarnessError } from '@durable-timeout/redis-testing';
import { chaosMessages } from '../chaos.messages.js';

/**
 * A TCP server on a free loopback port, handing each connection to `onConnection`: what the
 * chaos proxies put in front of a Redis server. `name` says which proxy in the error when the
 * system gives no port.
 */
export async function listenOnLoopback(name: string, onConnection: (client: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new HarnessError('process', chaosMessages.proxyWithoutPort(name));
  return { server, port: address.port };
}
