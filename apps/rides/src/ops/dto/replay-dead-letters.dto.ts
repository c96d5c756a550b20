import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import { RIDES_TOPICS, type RidesTopic } from '../../trips/deadlines/ride-topics.js';

/** Body of `POST /ops/dead-letters/replay`. */
export class ReplayDeadLettersDto {
  /** The topic whose dead letters are replayed. */
  @IsIn(RIDES_TOPICS)
  topic!: RidesTopic;

  /** The trip ids to replay; every dead letter of the topic when omitted. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  ids?: string[];
}
