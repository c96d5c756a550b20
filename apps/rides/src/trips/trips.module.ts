import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { TimeoutMode } from '../config/rides.config.js';
import { DriverMatchTimeoutHandler } from './deadlines/driver-match-timeout.handler.js';
import { DurableMatchDeadlines } from './deadlines/durable-match-deadlines.js';
import { LegacyMatchDeadlines } from './deadlines/legacy-match-deadlines.js';
import { MatchDeadlines } from './deadlines/match-deadlines.js';
import { DriversController } from './drivers.controller.js';
import { TripExpiryService } from './trip-expiry.service.js';
import { TripRepository } from './trip.repository.js';
import { TripsExceptionFilter } from './trips-exception.filter.js';
import { TripsController } from './trips.controller.js';
import { TripsService } from './trips.service.js';

/** The trips feature. The driver-match deadline is durable (module + handler) or legacy (process timers). */
@Module({})
export class TripsModule {
  /** Wires the feature for a timeout mode; durable mode expects a global `DurableTimeoutModule` in the app. */
  static register(mode: TimeoutMode): DynamicModule {
    const deadlines: Provider[] =
      mode === 'durable'
        ? [{ provide: MatchDeadlines, useClass: DurableMatchDeadlines }, DriverMatchTimeoutHandler]
        : [{ provide: MatchDeadlines, useClass: LegacyMatchDeadlines }];
    return {
      module: TripsModule,
      controllers: [TripsController, DriversController],
      providers: [
        TripRepository,
        TripExpiryService,
        TripsService,
        ...deadlines,
        { provide: APP_FILTER, useClass: TripsExceptionFilter },
      ],
    };
  }
}
