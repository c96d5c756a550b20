import { ArgumentsHost, Catch, ConflictException, NotFoundException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { DriverBusyError } from './errors/driver-busy.error.js';
import { TripNotFoundError } from './errors/trip-not-found.error.js';
import { TripNotWaitingError } from './errors/trip-not-waiting.error.js';

/** Answers the trips domain errors with their HTTP status: unknown trip 404, not waiting or driver busy 409. */
@Catch(TripNotFoundError, TripNotWaitingError, DriverBusyError)
export class TripsExceptionFilter extends BaseExceptionFilter {
  /** Converts the domain error and lets Nest write the usual `{ statusCode, message, error }` body. */
  override catch(error: TripNotFoundError | TripNotWaitingError | DriverBusyError, host: ArgumentsHost): void {
    const http =
      error instanceof TripNotFoundError ? new NotFoundException(error.message) : new ConflictException(error.message);
    super.catch(http, host);
  }
}
