import { Module } from '@nestjs/common';
import { DeadLettersController } from './dead-letters.controller.js';

/** Operator endpoints: dead letters of the rides timeouts, listed and replayed. Expects a global `DurableTimeoutModule`. */
@Module({ controllers: [DeadLettersController] })
export class OpsModule {}
