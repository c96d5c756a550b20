import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { CreateOrderDto } from './dto/create-order.dto.js';
import { PayOrderDto } from './dto/pay-order.dto.js';
import type { CreatedOrderView, OrderView } from './order.model.js';
import { OrdersService } from './orders.service.js';

/** HTTP API of the orders: see docs/APPS.md for the contract. */
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  /** Places an order; it must be paid within PAYMENT_TIMEOUT_MS. */
  @Post()
  create(@Body() body: CreateOrderDto): Promise<CreatedOrderView> {
    return this.orders.create({
      items: body.items.map(({ sku, qty }) => ({ sku, qty })),
      amountCents: body.amountCents,
      customerId: body.customerId,
    });
  }

  /** Pays a pending order: 200 CONFIRMED, 409 when already paid or timed out, 404 when unknown. */
  @Post(':id/payment')
  @HttpCode(HttpStatus.OK)
  pay(@Param('id') id: string, @Body() body: PayOrderDto): Promise<OrderView> {
    return this.orders.pay(id, body.paymentRef);
  }

  /** Reads an order with every status change ever applied to it. */
  @Get(':id')
  get(@Param('id') id: string): Promise<OrderView> {
    return this.orders.get(id);
  }
}
