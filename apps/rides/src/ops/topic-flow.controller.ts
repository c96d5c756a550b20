import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { TimeoutScheduler, type TopicResumeResult } from '@durable-timeout/nestjs';
import { RIDES_TOPICS, type RidesTopic } from '../trips/deadlines/ride-topics.js';
import { ResumeTopicDto } from './dto/resume-topic.dto.js';
import { TopicParams } from './dto/topic.params.js';

/** One topic as operators see it: paused or not, and its counts. */
export interface TopicStatusView {
  topic: RidesTopic;
  /** True while the topic is paused: none of its deadlines fires, on any instance. */
  paused: boolean;
  /** Deadlines waiting, handlers running, dead letters. */
  pending: number;
  firing: number;
  dead: number;
}

/** What `POST /ops/topics/:topic/pause` answers. */
export interface TopicPausedView {
  topic: RidesTopic;
  paused: true;
  /** When the topic was paused (ISO 8601, Redis server clock): the first pause, if it already was. */
  pausedAt: string;
}

/**
 * Pausing a topic during an incident. When what a topic's handler acts on is out of order (say the
 * driver dispatch service that would take back a late driver is down), pausing the topic stops its
 * deadlines from firing on every instance, while trips go on scheduling and cancelling them.
 * Once the service is back, resume: what fell due fires at once, or, with `shift`, every pending
 * deadline moves later by the length of the pause. Put it behind your operators' authentication
 * in a real service.
 */
@Controller('ops/topics')
export class TopicFlowController {
  constructor(private readonly timeouts: TimeoutScheduler<RidesTopic>) {}

  /** Each topic: paused or not, with its counts. */
  @Get()
  async status(): Promise<TopicStatusView[]> {
    return Promise.all(
      RIDES_TOPICS.map(async (topic) => {
        const [paused, stats] = await Promise.all([this.timeouts.paused(topic), this.timeouts.stats(topic)]);
        return { topic, paused, pending: stats.pending, firing: stats.firing, dead: stats.dead };
      }),
    );
  }

  /** Pauses a topic on every instance (a topic already paused stays paused since its first pause). */
  @Post(':topic/pause')
  @HttpCode(HttpStatus.OK)
  async pause(@Param() params: TopicParams): Promise<TopicPausedView> {
    const state = await this.timeouts.pause(params.topic);
    return { topic: params.topic, paused: true, pausedAt: new Date(state.pausedAt ?? Date.now()).toISOString() };
  }

  /** Resumes a topic; `shift: true` moves its pending deadlines later by the length of the pause. */
  @Post(':topic/resume')
  @HttpCode(HttpStatus.OK)
  async resume(@Param() params: TopicParams, @Body() body: ResumeTopicDto): Promise<TopicResumeResult & { topic: RidesTopic }> {
    const result = await this.timeouts.resume(params.topic, { shift: body.shift === true });
    return { ...result, topic: params.topic };
  }
}
