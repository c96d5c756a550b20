import { ArgumentsHost, Catch, ConflictException, NotFoundException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { RecordConflictError } from '../errors/record-conflict.error.js';
import { RecordNotFoundError } from '../errors/record-not-found.error.js';

/** Answers the apps' record errors with their HTTP status: unknown record 404, an action its state refuses 409. */
@Catch(RecordNotFoundError, RecordConflictError)
export class RecordErrorsFilter extends BaseExceptionFilter {
  /** Converts the error and lets Nest write the usual `{ statusCode, message, error }` body. */
  override catch(error: RecordNotFoundError | RecordConflictError, host: ArgumentsHost): void {
    const http = error instanceof RecordNotFoundError ? new NotFoundException(error.message) : new ConflictException(error.message);
    super.catch(http, host);
  }
}
