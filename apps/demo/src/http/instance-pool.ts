import { DemoMessages } from '../demo.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';
import { sleep } from '../util/async.js';

/** An instance the pool can send requests to. */
export interface PoolMember {
  name: string;
  baseUrl: string;
}

/** Which requests may be sent again to another instance after a network error. */
export type RetryPolicy = 'idempotent' | 'not-delivered-only';

const WAIT_FOR_MEMBER_MS = 50;
const REQUEST_TIMEOUT_MS = 5000;

/**
 * The demo's load balancer: round-robin over the instances in rotation. Like a real one, it takes
 * an instance out of rotation before the deployment signals it, so requests go to the others.
 */
export class InstancePool<M extends PoolMember = PoolMember> {
  private members: M[] = [];
  private cursor = 0;
  private closed = false;
  /** Requests that got no HTTP answer at all, retried or not. */
  networkErrors = 0;

  constructor(private readonly noMemberTimeoutMs = 30_000) {}

  /** Puts an instance in rotation. */
  add(member: M): void {
    if (!this.closed && !this.members.includes(member)) this.members.push(member);
  }

  /** Takes every instance out of rotation for good: requests, waiting ones included, fail at once. */
  close(): void {
    this.closed = true;
    this.members = [];
  }

  /** Takes an instance out of rotation. */
  remove(member: M): void {
    this.members = this.members.filter((candidate) => candidate !== member);
  }

  /** Instances in rotation, in order. */
  get current(): readonly M[] {
    return this.members;
  }

  /**
   * Sends a request to the next instance in rotation. A network error moves on to the next
   * instance: any error for idempotent requests, only a refused connection (the request never
   * reached an app) for the others. Waits for an instance while none is in rotation.
   */
  async request(path: string, init: RequestInit, retry: RetryPolicy): Promise<Response> {
    const deadline = Date.now() + this.noMemberTimeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline && !this.closed) {
      const member = this.next();
      if (!member) {
        await sleep(WAIT_FOR_MEMBER_MS);
        continue;
      }
      try {
        return await fetch(`${member.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      } catch (error) {
        this.networkErrors += 1;
        lastError = error;
        if (retry === 'not-delivered-only' && !isConnectionRefused(error)) throw error;
        await sleep(WAIT_FOR_MEMBER_MS);
      }
    }
    if (this.closed) throw new HarnessError('process', DemoMessages.poolClosed());
    throw lastError ?? new HarnessError('process', DemoMessages.noLiveInstance(this.noMemberTimeoutMs));
  }

  private next(): M | undefined {
    if (this.members.length === 0) return undefined;
    this.cursor = (this.cursor + 1) % this.members.length;
    return this.members[this.cursor];
  }
}

function isConnectionRefused(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'ECONNREFUSED';
}
