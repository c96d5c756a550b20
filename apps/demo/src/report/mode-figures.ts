import { OrderStatus, toEpochMs, type OrderView } from './order-view.js';

/** How the orders app fires its payment timeouts: the old in-memory sleep, or this library. */
export type DemoMode = 'legacy' | 'durable';

/** Outcomes of a batch of `POST /orders/:id/payment` calls. */
export interface PaymentTally {
  attempted: number;
  /** 200: the order moved to CONFIRMED. */
  confirmed: number;
  /** 409: the order had already left PENDING_PAYMENT. */
  refused: number;
  /** No answer, 404 or any other status. */
  failed: number;
}

/** What a mode's run and its figures both give: the counts taken while it ran. */
interface ModeRunCounts {
  mode: DemoMode;
  ordersRequested: number;
  createFailures: number;
  onTimePayments: PaymentTally;
  latePayments: PaymentTally;
  sigterms: number;
  sigkills: number;
  /** Instances that did not exit within the grace period after SIGTERM and were killed. */
  forcedKills: number;
  durationMs: number;
}

/** What one mode's run observed, before any counting. */
export interface ModeRunRecord extends ModeRunCounts {
  /** Final `GET /orders/:id` of every created order; `undefined` when it could not be read. */
  finalViews: (OrderView | undefined)[];
}

/** The figures the demo prints and writes with `--json`, for one mode. */
export interface ModeFigures extends ModeRunCounts {
  created: number;
  /** Orders in CONFIRMED at the end. */
  paid: number;
  /** Orders in PAYMENT_TIMEOUT at the end. */
  timedOut: number;
  /** Orders still in PENDING_PAYMENT after the last deadline: their timeout was lost. */
  stuck: number;
  /** Orders in any other status. */
  otherStatus: number;
  /** Orders the final read could not get. */
  unreadable: number;
  /** Transitions out of PENDING_PAYMENT beyond the first one of an order. */
  duplicateTransitions: number;
  /** Orders with at least one duplicate transition. */
  ordersWithDuplicates: number;
  /** Worst `at - paymentDueAt` of a timeout transition; null when no order timed out. */
  worstLatenessMs: number | null;
  medianLatenessMs: number | null;
  /** Smallest lateness: negative means a timeout fired before its deadline. */
  minLatenessMs: number | null;
}

/** An empty payment tally. */
export function emptyTally(): PaymentTally {
  return { attempted: 0, confirmed: 0, refused: 0, failed: 0 };
}

/** Counts a mode's figures from the final read of its orders. */
export function computeModeFigures(record: ModeRunRecord): ModeFigures {
  const statusCounts = new Map<string, number>();
  const lateness: number[] = [];
  let unreadable = 0;
  let duplicateTransitions = 0;
  let ordersWithDuplicates = 0;

  for (const view of record.finalViews) {
    if (!view) {
      unreadable += 1;
      continue;
    }
    statusCounts.set(view.status, (statusCounts.get(view.status) ?? 0) + 1);
    const leavingPending = view.transitions.filter((t) => t.from === OrderStatus.pending).length;
    if (leavingPending > 1) {
      duplicateTransitions += leavingPending - 1;
      ordersWithDuplicates += 1;
    }
    const dueAt = toEpochMs(view.paymentDueAt);
    if (dueAt === undefined) continue;
    for (const transition of view.transitions) {
      const at = toEpochMs(transition.at);
      if (transition.by === 'timeout' && at !== undefined) lateness.push(at - dueAt);
    }
  }

  const paid = statusCounts.get(OrderStatus.confirmed) ?? 0;
  const timedOut = statusCounts.get(OrderStatus.timedOut) ?? 0;
  const stuck = statusCounts.get(OrderStatus.pending) ?? 0;
  const read = record.finalViews.length - unreadable;
  lateness.sort((a, b) => a - b);

  return {
    mode: record.mode,
    ordersRequested: record.ordersRequested,
    created: record.finalViews.length,
    createFailures: record.createFailures,
    paid,
    timedOut,
    stuck,
    otherStatus: read - paid - timedOut - stuck,
    unreadable,
    duplicateTransitions,
    ordersWithDuplicates,
    worstLatenessMs: lateness.length ? lateness[lateness.length - 1] : null,
    medianLatenessMs: median(lateness),
    minLatenessMs: lateness.length ? lateness[0] : null,
    onTimePayments: { ...record.onTimePayments },
    latePayments: { ...record.latePayments },
    sigterms: record.sigterms,
    sigkills: record.sigkills,
    forcedKills: record.forcedKills,
    durationMs: record.durationMs,
  };
}

function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2);
}
