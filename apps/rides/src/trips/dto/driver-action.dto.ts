import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of a driver's action on a trip: `accept`, `arrive`, `start`, `complete`. */
export class DriverActionDto {
  /** The driver acting; for all but `accept`, it must be the trip's driver. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  driverId!: string;
}
