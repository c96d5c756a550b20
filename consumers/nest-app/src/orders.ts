import { Controller, Get, Injectable, Module, NotFoundException, Param, Post, Query } from '@nestjs/common';
import { DurableTimeoutModule, TimeoutScheduler } from '@durable-timeout/nestjs';

export type OrderStatus = 'PENDING' | 'PAID' | 'PAYMENT_TIMEOUT';

export interface PaymentDeadline {
  orderId: string;
}

// The orders feature owns the payment topic: its payload type here, its options in forFeature below.
declare module '@durable-timeout/nestjs' {
  interface DurableTimeoutTopics {
    payment: PaymentDeadline;
  }
}

@Injectable()
export class OrdersService {
  private readonly orders = new Map<string, OrderStatus>();

  constructor(private readonly timeouts: TimeoutScheduler) {}

  async create(id: string, delayMs = Number(process.env.PAYMENT_TIMEOUT_MS ?? 60_000)): Promise<void> {
    await this.timeouts.schedule('payment', id, { delayMs, payload: { orderId: id } });
    this.orders.set(id, 'PENDING');
  }

  async pay(id: string): Promise<boolean> {
    const paid = this.settle(id, 'PAID');
    if (paid) await this.timeouts.cancel('payment', id);
    return paid;
  }

  /** Compare-and-set from PENDING, so a repeated delivery changes nothing. */
  settle(id: string, to: 'PAID' | 'PAYMENT_TIMEOUT'): boolean {
    if (this.orders.get(id) !== 'PENDING') return false;
    this.orders.set(id, to);
    return true;
  }

  find(id: string): OrderStatus | undefined {
    return this.orders.get(id);
  }
}

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post(':id')
  async create(@Param('id') id: string, @Query('delayMs') delayMs?: string): Promise<{ id: string }> {
    await this.orders.create(id, delayMs === undefined ? undefined : Number(delayMs));
    return { id };
  }

  @Post(':id/pay')
  async pay(@Param('id') id: string): Promise<{ paid: boolean }> {
    return { paid: await this.orders.pay(id) };
  }

  @Get(':id')
  find(@Param('id') id: string): { id: string; status: OrderStatus } {
    const status = this.orders.find(id);
    if (!status) throw new NotFoundException();
    return { id, status };
  }
}

/**
 * Schedules the payment deadline and declares its topic (forFeature); the scheduler comes from the
 * root module, registered with isGlobal.
 */
@Module({
  imports: [DurableTimeoutModule.forFeature({ topics: { payment: { leaseMs: 5_000 } } })],
  controllers: [OrdersController],
  providers: [OrdersService],
  exports: [OrdersService],
})
export class OrdersModule {}
