import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the webhook received. */
export interface ReceivedNotice {
  idempotencyKey: string | undefined;
  body: unknown;
  /** The status it answered. */
  answered: number;
}

/**
 * A real HTTP server standing in for the rider notification service in tests: it records every
 * notice and answers `status` (200 by default; set 503 to make the webhook fail).
 */
export class RiderWebhookFixture {
  /** Every request received, oldest first. */
  readonly received: ReceivedNotice[] = [];
  /** What the next requests are answered. */
  status = 200;

  private constructor(private readonly server: Server) {}

  /** Starts listening on a free port of 127.0.0.1. */
  static async start(): Promise<RiderWebhookFixture> {
    const server = createServer();
    const fixture = new RiderWebhookFixture(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const header = request.headers['idempotency-key'];
        fixture.received.push({
          idempotencyKey: Array.isArray(header) ? header[0] : header,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          answered: fixture.status,
        });
        response.writeHead(fixture.status).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return fixture;
  }

  /** `http://127.0.0.1:<port>/riders/notify`, for RIDER_WEBHOOK_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/riders/notify`;
  }

  /** The notices answered 2xx. */
  delivered(): ReceivedNotice[] {
    return this.received.filter((notice) => notice.answered < 300);
  }

  /** Stops the server. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
