import { Module } from '@nestjs/common';
import { DriverMatchTimeoutHandler } from './deadlines/driver-match-timeout.handler.js';
import { PickupTimeoutHandler } from './deadlines/pickup-timeout.handler.js';
import { TripDeadlines } from './deadlines/trip-deadlines.js';
import { TripTimeoutEffects } from './deadlines/trip-timeout.effects.js';
import { DriversController } from './drivers.controller.js';
import { RiderNotifier } from './notify/rider-notifier.js';
import { TripRepository } from './trip.repository.js';
import { TripsController } from './trips.controller.js';
import { TripsService } from './trips.service.js';

/**
 * The trips feature: the trip use cases, its two deadlines and their `@OnTimeout` handlers.
 * Expects a global `DurableTimeoutModule` (or `DurableTimeoutTestingModule`) with the rides topics.
 */
@Module({
  controllers: [TripsController, DriversController],
  providers: [TripRepository, TripsService, TripDeadlines, TripTimeoutEffects, RiderNotifier, DriverMatchTimeoutHandler, PickupTimeoutHandler],
})
export class TripsModule {}
