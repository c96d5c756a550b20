import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { RIDES_TOPICS, type RidesTopic } from '../../trips/deadlines/ride-topics.js';

/** Query of `GET /ops/dead-letters`. */
export class ListDeadLettersQuery {
  /** Only this topic's dead letters; all topics when omitted. */
  @IsOptional()
  @IsIn(RIDES_TOPICS)
  topic?: RidesTopic;

  /** Most dead letters returned, oldest first. Default 100. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  limit?: number;
}
