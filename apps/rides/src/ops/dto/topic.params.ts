import { IsIn } from 'class-validator';
import { RIDES_TOPICS, type RidesTopic } from '../../trips/deadlines/ride-topics.js';

/** Route parameters of `POST /ops/topics/:topic/pause` and `/resume`. */
export class TopicParams {
  /** The topic paused or resumed: `driver-match` or `pickup`. */
  @IsIn(RIDES_TOPICS)
  topic!: RidesTopic;
}
