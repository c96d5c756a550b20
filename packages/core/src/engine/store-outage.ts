import type { DurableTimeoutsEvents, TimeoutLogger } from '../types.js';
import type { EventHub } from './event-hub.js';
import { engineMessages } from './engine.messages.js';
import { FailoverReporting } from './failover-reporting.js';
import { toError } from '../support/to-error.js';

/**
 * How the engine reports failing store calls: every failure as an `error` event (a `warning` while
 * a Redis failover is in progress, see `FailoverReporting`), and one log line per outage, not one
 * per failed call; a line again when a call succeeds after it.
 */
export class StoreOutage {
  private outage = false;
  private readonly failover = new FailoverReporting();

  constructor(
    private readonly logger: TimeoutLogger | null,
    private readonly events: EventHub<DurableTimeoutsEvents>,
  ) {}

  /** A store call failed. */
  failed(error: unknown, operation: string, topic?: string): void {
    const cause = toError(error, engineMessages.handlerThrewNonError);
    const event = topic === undefined ? { error: cause, operation } : { error: cause, topic, operation };
    if (this.failover.isWarning(cause)) {
      if (!this.outage) {
        this.outage = true;
        this.logger?.warn(engineMessages.storeFailingOver(operation, cause.message), { operation, topic });
      }
      this.events.emit('warning', event);
      return;
    }
    if (!this.outage) {
      this.outage = true;
      this.logger?.error(engineMessages.storeFailing(operation, cause.message), { operation, topic });
    }
    this.events.emit('error', event);
  }

  /** A store call succeeded. */
  healthy(): void {
    this.failover.healthy();
    if (!this.outage) return;
    this.outage = false;
    this.logger?.log(engineMessages.storeRecovered());
  }
}
