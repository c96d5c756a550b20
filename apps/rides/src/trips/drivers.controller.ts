import { Controller, Get, Param } from '@nestjs/common';
import type { DriverView } from './trip.model.js';
import { TripsService } from './trips.service.js';

/** `GET /drivers/:driverId`: whether a driver is free or assigned to a trip. */
@Controller('drivers')
export class DriversController {
  constructor(private readonly trips: TripsService) {}

  /** The driver's current trip, `tripId: null` when free. */
  @Get(':driverId')
  get(@Param('driverId') driverId: string): Promise<DriverView> {
    return this.trips.driver(driverId);
  }
}
