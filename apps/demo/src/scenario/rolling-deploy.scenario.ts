import { join } from 'node:path';
import { freePort } from '@durable-timeout/redis-testing';
import { InstancePool } from '../http/instance-pool.js';
import { OrdersClient, type PaymentOutcome } from '../http/orders-client.js';
import { OrdersInstance } from '../processes/orders-instance.js';
import type { ProcessRegistry } from '../processes/process-registry.js';
import { emptyTally, type DemoMode, type ModeRunRecord, type PaymentTally } from '../report/mode-figures.js';
import { OrderStatus, type OrderView } from '../report/order-view.js';
import { mapWithConcurrency, sleep } from '../util/async.js';
import { OrderTracker, type TrackedOrder } from './order-tracker.js';
import { ProgressPrinter } from './progress-printer.js';

/** What one mode's run needs from the demo. */
export interface ScenarioContext {
  mode: DemoMode;
  orders: number;
  timeoutMs: number;
  redisUrl: string;
  /** Prefix of every key this run writes: `<keyPrefix>.orders` (state) and `<keyPrefix>.dt` (timeouts). */
  keyPrefix: string;
  ordersEntryPoint: string;
  logDir: string;
  registry: ProcessRegistry;
  progress?: ProgressPrinter;
}

/** Timings of the scenario. Short on purpose: both modes together stay well under 90 s. */
export const SCENARIO_TIMINGS = {
  /** Orders are placed evenly over this window (at most 60% of the payment timeout). */
  placementSpreadMs: 2500,
  /** Every fourth order is paid this long after creation at most: well before its deadline. */
  onTimePaymentDelayMaxMs: 1500,
  /**
   * The first restart starts as soon as the orders are placed, before any deadline. The second
   * waits until this share of the deadline window has passed (if the first took less long), so it
   * lands while timeouts are falling due, on fast and slow machines alike.
   */
  secondRestartAtWindowShare: 0.5,
  /** Share of orders paid after they timed out, to show the 409. */
  latePaymentShare: 0.05,
  /**
   * TIMEOUT_LEASE_MS of the orders app: how long a claimed timeout stays with the instance that
   * claimed it. The app's default (30 s) would hold the SIGKILLed instance's claims past the demo.
   */
  leaseMs: 2000,
  /** DRAIN_MS of the orders app. */
  drainMs: 2000,
  /** After SIGTERM, how long before the demo gives up and sends SIGKILL. */
  terminateGraceMs: 10_000,
  healthTimeoutMs: 30_000,
  /** The SIGKILL lands when the instance stopped by SIGTERM has exited, or after this at most. */
  killMidwayMaxMs: 1000,
  /** Wait at least this long past the last deadline before counting (a lease expiry, a sweep). */
  settleMarginMs: 2000,
  /** Durable mode: keep waiting for the last pending orders up to this long past the last deadline. */
  durableCapMs: 15_000,
  statusEveryMs: 1000,
  readConcurrency: 16,
} as const;

/**
 * One mode of the demo: two orders instances, a few hundred orders, a rolling restart with one
 * SIGKILL, then the final read of every order.
 */
export class RollingDeployScenario {
  private readonly pool = new InstancePool<OrdersInstance>();
  private readonly client = new OrdersClient(this.pool);
  private readonly tracker = new OrderTracker(this.client);
  private readonly progress: ProgressPrinter;
  private readonly instances: OrdersInstance[] = [];
  private readonly onTimePayments = emptyTally();
  private readonly latePayments = emptyTally();
  private readonly paymentsInFlight: Promise<void>[] = [];
  private createFailures = 0;
  private sigterms = 0;
  private sigkills = 0;
  private forcedKills = 0;
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly context: ScenarioContext) {
    this.progress = context.progress ?? new ProgressPrinter(context.mode);
  }

  /** Runs the whole scenario; always stops the instances it started. */
  async run(): Promise<ModeRunRecord> {
    const startedAt = Date.now();
    try {
      const [a, b] = await this.startInstances();
      await this.placeOrders();
      this.startTicker();
      const aReplacement = await this.restartGracefully(a, "A'");
      await this.waitForMidWindow();
      await this.restartWithCrash(b, "B'", aReplacement, "A''");
      await this.waitPastDeadlines();
      this.stopTicker();
      const finalViews = await this.readAll();
      await this.stopAll();
      return {
        mode: this.context.mode,
        ordersRequested: this.context.orders,
        finalViews,
        createFailures: this.createFailures,
        onTimePayments: { ...this.onTimePayments },
        latePayments: { ...this.latePayments },
        sigterms: this.sigterms,
        sigkills: this.sigkills,
        forcedKills: this.forcedKills,
        durationMs: Date.now() - startedAt,
      };
    } finally {
      this.stopTicker();
      await this.stopAll();
    }
  }

  private async startInstances(): Promise<[OrdersInstance, OrdersInstance]> {
    this.progress.phase(`starting orders instances A and B (TIMEOUT_MODE=${this.context.mode})`);
    const pair = await Promise.all([this.startInstance('A'), this.startInstance('B')]);
    this.progress.status(`A (port ${pair[0].port}) and B (port ${pair[1].port}) answer /health`);
    return pair;
  }

  private async startInstance(name: string): Promise<OrdersInstance> {
    const { mode, keyPrefix, timeoutMs, redisUrl, ordersEntryPoint, logDir, registry } = this.context;
    const fileName = `${mode}-${this.instances.length + 1}-${name.replace(/'/g, 'p')}.log`;
    const instance = OrdersInstance.launch(
      {
        name,
        entryPoint: ordersEntryPoint,
        port: await freePort(),
        logFile: join(logDir, fileName),
        env: {
          REDIS_URL: redisUrl,
          PAYMENT_TIMEOUT_MS: String(timeoutMs),
          TIMEOUT_MODE: mode,
          KEY_PREFIX: `${keyPrefix}.orders`,
          DT_PREFIX: `${keyPrefix}.dt`,
          DRAIN_MS: String(SCENARIO_TIMINGS.drainMs),
          TIMEOUT_LEASE_MS: String(SCENARIO_TIMINGS.leaseMs),
          INSTANCE_ID: `${mode}-${name.replace(/'/g, 'p')}`,
        },
      },
      registry,
    );
    this.instances.push(instance);
    await instance.waitHealthy(SCENARIO_TIMINGS.healthTimeoutMs);
    this.pool.add(instance);
    return instance;
  }

  private async placeOrders(): Promise<void> {
    const { orders, timeoutMs } = this.context;
    const spreadMs = Math.min(SCENARIO_TIMINGS.placementSpreadMs, Math.round(timeoutMs * 0.6));
    const payDelayMaxMs = Math.min(SCENARIO_TIMINGS.onTimePaymentDelayMaxMs, Math.round(timeoutMs * 0.3));
    this.progress.phase(
      `placing ${orders} orders over ${(spreadMs / 1000).toFixed(1)} s across A and B, paying every fourth one within ${payDelayMaxMs} ms`,
    );
    const started = Date.now();
    const creations: Promise<void>[] = [];
    let lastStatusAt = started;
    for (let sequence = 0; sequence < orders; sequence++) {
      await sleep(started + (sequence * spreadMs) / orders - Date.now());
      creations.push(this.placeOne(sequence, payDelayMaxMs));
      if (Date.now() - lastStatusAt >= SCENARIO_TIMINGS.statusEveryMs) {
        lastStatusAt = Date.now();
        this.progress.status(`created ${this.tracker.orders.length}/${orders} · paid ${this.onTimePayments.confirmed}`);
      }
    }
    await Promise.all(creations);
    this.progress.status(
      `created ${this.tracker.orders.length}/${orders}` +
        (this.createFailures ? ` (${this.createFailures} failed)` : '') +
        ` · paid ${this.onTimePayments.confirmed} so far`,
    );
  }

  private async placeOne(sequence: number, payDelayMaxMs: number): Promise<void> {
    const created = await this.client.createOrder(sequence);
    if (!created) {
      this.createFailures += 1;
      return;
    }
    const paidOnTime = sequence % 4 === 0;
    const tracked: TrackedOrder = { ...created, paidOnTime, lastStatus: OrderStatus.pending };
    this.tracker.track(tracked);
    if (paidOnTime) {
      this.paymentsInFlight.push(
        sleep(Math.random() * payDelayMaxMs)
          .then(() => this.client.pay(created.id, `demo-pay-${sequence}`))
          .then((outcome) => {
            count(this.onTimePayments, outcome);
            if (outcome === 'confirmed') tracked.lastStatus = OrderStatus.confirmed;
          }),
      );
    }
  }

  private async waitForMidWindow(): Promise<void> {
    const first = this.tracker.firstDeadline;
    const at = first + (this.tracker.lastDeadline - first) * SCENARIO_TIMINGS.secondRestartAtWindowShare;
    if (at <= Date.now()) return;
    this.progress.phase(
      `letting timeouts fall due: the second restart starts in ${((at - Date.now()) / 1000).toFixed(1)} s, ` +
        'halfway through the payment deadlines',
    );
    await sleep(at - Date.now());
  }

  private async restartGracefully(old: OrdersInstance, replacementName: string): Promise<OrdersInstance> {
    const firstIn = ((this.tracker.firstDeadline - Date.now()) / 1000).toFixed(1);
    this.progress.phase(
      `rolling restart 1/2: SIGTERM ${old.name}, start ${replacementName} (first payment deadline in ${firstIn} s)`,
    );
    this.pool.remove(old);
    const [, replacement] = await Promise.all([this.terminate(old), this.startInstance(replacementName)]);
    this.progress.status(`${old.name} drained and exited, ${replacementName} is up (port ${replacement.port})`);
    return replacement;
  }

  private async restartWithCrash(
    old: OrdersInstance,
    replacement: string,
    victim: OrdersInstance,
    victimReplacement: string,
  ): Promise<void> {
    const victimName = victim.name;
    this.progress.phase(
      `rolling restart 2/2: SIGTERM ${old.name}, start ${replacement}; SIGKILL ${victimName} mid-way, start ${victimReplacement}`,
    );
    this.pool.remove(old);
    const oldStopped = this.terminate(old);
    const replaced = this.startInstance(replacement);
    await Promise.race([oldStopped, sleep(SCENARIO_TIMINGS.killMidwayMaxMs)]);
    this.pool.remove(victim);
    this.sigkills += 1;
    await victim.kill();
    this.progress.status(`${victimName} killed with SIGKILL: whatever it held in memory or in flight is gone`);
    const [, started, restarted] = await Promise.all([oldStopped, replaced, this.startInstance(victimReplacement)]);
    this.progress.status(
      `${old.name} exited; ${replacement} (port ${started.port}) and ${victimReplacement} (port ${restarted.port}) are up`,
    );
  }

  private async terminate(instance: OrdersInstance): Promise<void> {
    this.sigterms += 1;
    const { forced } = await instance.terminate(SCENARIO_TIMINGS.terminateGraceMs);
    if (forced) {
      this.forcedKills += 1;
      this.progress.status(`${instance.name} did not exit within ${SCENARIO_TIMINGS.terminateGraceMs} ms of SIGTERM: killed`);
    }
  }

  private async waitPastDeadlines(): Promise<void> {
    const lastDeadline = this.tracker.lastDeadline;
    const settleAt = lastDeadline + SCENARIO_TIMINGS.settleMarginMs;
    this.progress.phase(
      `waiting past the last deadline (+${SCENARIO_TIMINGS.settleMarginMs} ms margin)` +
        (this.context.mode === 'durable' ? ', then until no order is pending' : ''),
    );
    await sleep(settleAt - Date.now());
    await Promise.all(this.paymentsInFlight);
    await this.tracker.freshPoll();
    await this.payLate();
    if (this.context.mode !== 'durable') return;
    const capAt = lastDeadline + SCENARIO_TIMINGS.durableCapMs;
    for (;;) {
      const counts = await this.tracker.freshPoll();
      if (counts.pending === 0 || Date.now() >= capAt) return;
      await sleep(Math.min(SCENARIO_TIMINGS.statusEveryMs / 2, capAt - Date.now()));
    }
  }

  private async payLate(): Promise<void> {
    const wanted = Math.max(1, Math.round(this.context.orders * SCENARIO_TIMINGS.latePaymentShare));
    const timedOut = this.tracker.orders.filter((order) => !order.paidOnTime && order.lastStatus === OrderStatus.timedOut);
    const step = Math.max(1, Math.floor(timedOut.length / wanted));
    const targets = timedOut.filter((_, index) => index % step === 0).slice(0, wanted);
    this.progress.phase(`paying ${targets.length} orders that already timed out (expect 409)`);
    await mapWithConcurrency(targets, SCENARIO_TIMINGS.readConcurrency, async (order, index) => {
      count(this.latePayments, await this.client.pay(order.id, `demo-late-${index}`));
    });
    this.progress.status(`late payments: ${this.latePayments.refused} refused (409), ${this.latePayments.confirmed} accepted`);
  }

  private async readAll(): Promise<(OrderView | undefined)[]> {
    const orders = this.tracker.orders;
    this.progress.phase(`reading all ${orders.length} orders back through ${this.pool.current.map((m) => m.name).join(' and ')}`);
    return mapWithConcurrency(orders, SCENARIO_TIMINGS.readConcurrency, (order) => this.client.getOrder(order.id));
  }

  private startTicker(): void {
    // Prints the latest counts every second and keeps one poll running; never waits on it.
    this.ticker = setInterval(() => {
      const counts = this.tracker.counts();
      const up = this.pool.current.map((member) => member.name).join(', ') || 'none';
      this.progress.status(
        `up: ${up.padEnd(9)} · pending ${counts.pending} · paid ${counts.paid} · timed out ${counts.timedOut}`,
      );
      if (!this.tracker.busy) void this.tracker.poll();
    }, SCENARIO_TIMINGS.statusEveryMs);
  }

  private stopTicker(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private async stopAll(): Promise<void> {
    this.pool.close();
    await Promise.all(this.instances.map((instance) => instance.terminate(SCENARIO_TIMINGS.terminateGraceMs)));
  }
}

function count(tally: PaymentTally, outcome: PaymentOutcome): void {
  tally.attempted += 1;
  tally[outcome] += 1;
}
