import { BadRequestException, Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { CreateTripDto } from './dto/create-trip.dto.js';
import { DriverActionDto } from './dto/driver-action.dto.js';
import { WidenSearchDto } from './dto/widen-search.dto.js';
import type { CreatedTripView, TripView } from './trip.model.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './trip-request-id.js';
import { tripsMessages } from './trips.messages.js';
import { TripsService } from './trips.service.js';

/**
 * HTTP API of the trips: see docs/APPS.md for the contract. Every action answers the trip, 404
 * for an unknown id, and 409 when the trip's state no longer allows it (nothing is changed then).
 */
@Controller('trips')
export class TripsController {
  constructor(private readonly trips: TripsService) {}

  /**
   * Requests a trip; a driver must accept it within DRIVER_MATCH_TIMEOUT_MS. With an
   * `Idempotency-Key` header (1 to 128 characters) a retry of the request answers the same trip and
   * never moves its deadline.
   */
  @Post()
  create(@Body() body: CreateTripDto, @Headers('idempotency-key') idempotencyKey?: string): Promise<CreatedTripView> {
    if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
      throw new BadRequestException(tripsMessages.badIdempotencyKey(MAX_IDEMPOTENCY_KEY_LENGTH));
    }
    return this.trips.create(
      {
        riderId: body.riderId,
        pickup: { lat: body.pickup.lat, lng: body.pickup.lng },
        dropoff: { lat: body.dropoff.lat, lng: body.dropoff.lng },
      },
      idempotencyKey,
    );
  }

  /** The rider widens the search of a WAITING trip: SEARCH_EXTENSION_MS more, at most twice. */
  @Post(':id/widen-search')
  @HttpCode(HttpStatus.OK)
  widenSearch(@Param('id') id: string, @Body() _body: WidenSearchDto): Promise<TripView> {
    return this.trips.widenSearch(id);
  }

  /** A driver accepts a WAITING trip (409 when it is not waiting any more or the driver is busy). */
  @Post(':id/accept')
  @HttpCode(HttpStatus.OK)
  accept(@Param('id') id: string, @Body() body: DriverActionDto): Promise<TripView> {
    return this.trips.accept(id, body.driverId);
  }

  /** The trip's driver is at the pickup (409 when late: the trip was given to another driver). */
  @Post(':id/arrive')
  @HttpCode(HttpStatus.OK)
  arrive(@Param('id') id: string, @Body() body: DriverActionDto): Promise<TripView> {
    return this.trips.arrive(id, body.driverId);
  }

  /** The rider boarded (409 when the rider was already marked as a no-show). */
  @Post(':id/start')
  @HttpCode(HttpStatus.OK)
  start(@Param('id') id: string, @Body() body: DriverActionDto): Promise<TripView> {
    return this.trips.start(id, body.driverId);
  }

  /** The ride ended; the driver is free. */
  @Post(':id/complete')
  @HttpCode(HttpStatus.OK)
  complete(@Param('id') id: string, @Body() body: DriverActionDto): Promise<TripView> {
    return this.trips.complete(id, body.driverId);
  }

  /** Reads a trip with every change ever applied to it. */
  @Get(':id')
  get(@Param('id') id: string): Promise<TripView> {
    return this.trips.get(id);
  }
}
