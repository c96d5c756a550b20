import { IsBoolean, IsOptional } from 'class-validator';

/** Body of `POST /ops/topics/:topic/resume` (may be empty). */
export class ResumeTopicDto {
  /**
   * True to move every pending deadline of the topic later by the length of the pause (the time
   * the topic was paused does not count); false or omitted: what fell due meanwhile fires at once.
   */
  @IsOptional()
  @IsBoolean()
  shift?: boolean;
}
