import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { AcceptTripDto } from './dto/accept-trip.dto.js';
import { CreateTripDto } from './dto/create-trip.dto.js';
import type { CreatedTripView, TripView } from './trip.model.js';
import { TripsService } from './trips.service.js';

/** HTTP API of the trips: see docs/APPS.md for the contract. */
@Controller('trips')
export class TripsController {
  constructor(private readonly trips: TripsService) {}

  /** Requests a trip; a driver must accept it within DRIVER_MATCH_TIMEOUT_MS. */
  @Post()
  create(@Body() body: CreateTripDto): Promise<CreatedTripView> {
    return this.trips.create({
      riderId: body.riderId,
      pickup: { lat: body.pickup.lat, lng: body.pickup.lng },
      dropoff: { lat: body.dropoff.lat, lng: body.dropoff.lng },
    });
  }

  /** A driver accepts: 200 ASSIGNED, 409 when the trip is not WAITING or the driver is busy, 404 when unknown. */
  @Post(':id/accept')
  @HttpCode(HttpStatus.OK)
  accept(@Param('id') id: string, @Body() body: AcceptTripDto): Promise<TripView> {
    return this.trips.accept(id, body.driverId);
  }

  /** Reads a trip with every status change ever applied to it. */
  @Get(':id')
  get(@Param('id') id: string): Promise<TripView> {
    return this.trips.get(id);
  }
}
