import { Test, TestingModule } from '@nestjs/testing';
import { DurableTimeoutTestingModule, TimeoutTestingClock } from '@durable-timeout/nestjs/testing';
import { OrdersModule, OrdersService } from './orders';
import { PaymentsModule } from './payments';

describe('PaymentTimeouts', () => {
  let moduleRef: TestingModule;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [DurableTimeoutTestingModule.forRoot({ isGlobal: true }), OrdersModule, PaymentsModule],
    }).compile();
    await moduleRef.init();
  });

  afterEach(() => moduleRef.close());

  it('times out an unpaid order when its deadline passes, and not a paid one', async () => {
    const orders = moduleRef.get(OrdersService);
    const clock = moduleRef.get(TimeoutTestingClock);
    await orders.create('unpaid', 60_000);
    await orders.create('paid', 60_000);
    await orders.pay('paid');

    expect(await clock.advanceBy(59_999)).toBe(0);
    expect(orders.find('unpaid')).toBe('PENDING');
    expect(await clock.advanceBy(1)).toBe(1);
    expect(orders.find('unpaid')).toBe('PAYMENT_TIMEOUT');
    expect(orders.find('paid')).toBe('PAID');
  });
});
