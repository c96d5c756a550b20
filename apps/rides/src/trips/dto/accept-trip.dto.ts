import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /trips/:id/accept`. */
export class AcceptTripDto {
  /** The driver taking the trip. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  driverId!: string;
}
