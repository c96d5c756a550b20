import { Type } from 'class-transformer';
import { IsNotEmpty, IsNumber, IsObject, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

/** A point on the map, in degrees. */
export class GeoPointDto {
  /** Latitude, -90 to 90. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  lat!: number;

  /** Longitude, -180 to 180. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  lng!: number;
}

/** Body of `POST /trips`. */
export class CreateTripDto {
  /** The rider asking for the trip. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  riderId!: string;

  /** Where the driver picks the rider up. */
  @IsObject()
  @ValidateNested()
  @Type(() => GeoPointDto)
  pickup!: GeoPointDto;

  /** Where the trip ends. */
  @IsObject()
  @ValidateNested()
  @Type(() => GeoPointDto)
  dropoff!: GeoPointDto;
}
