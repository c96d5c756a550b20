import { Module } from '@nestjs/common';
import { DeadLettersController } from './dead-letters.controller.js';
import { TopicFlowController } from './topic-flow.controller.js';

/**
 * Operator endpoints: dead letters of the rides timeouts, listed and replayed; each topic's status,
 * paused and resumed. Expects a global `DurableTimeoutModule`.
 */
@Module({ controllers: [DeadLettersController, TopicFlowController] })
export class OpsModule {}
