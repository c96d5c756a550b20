import { ArgumentsHost, Catch, ConflictException, NotFoundException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { OrderNotFoundError } from './errors/order-not-found.error.js';
import { OrderNotPendingError } from './errors/order-not-pending.error.js';

/** Answers the orders domain errors with their HTTP status: unknown order 404, not pending 409. */
@Catch(OrderNotFoundError, OrderNotPendingError)
export class OrdersExceptionFilter extends BaseExceptionFilter {
  /** Converts the domain error and lets Nest write the usual `{ statusCode, message, error }` body. */
  override catch(error: OrderNotFoundError | OrderNotPendingError, host: ArgumentsHost): void {
    const http =
      error instanceof OrderNotFoundError ? new NotFoundException(error.message) : new ConflictException(error.message);
    super.catch(http, host);
  }
}
