import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query } from '@nestjs/common';
import { TimeoutScheduler } from '@durable-timeout/nestjs';
import { RIDES_TOPICS, type RidesTopic } from '../trips/deadlines/ride-topics.js';
import { ListDeadLettersQuery } from './dto/list-dead-letters.query.js';
import { ReplayDeadLettersDto } from './dto/replay-dead-letters.dto.js';

/** A dead-lettered timeout as operators see it (no payload: the rides timeouts carry none, and payloads are never shown). */
export interface DeadLetterView {
  topic: RidesTopic;
  /** The trip id. */
  id: string;
  attempts: number;
  /** The last handler error, e.g. why the rider webhook refused. */
  lastError: string;
  /** When it was dead-lettered (ISO 8601, Redis server clock). */
  deadAt: string;
  /** When its last schedule was made. */
  scheduledAt: string;
}

/** Default page size of the listing. */
const DEFAULT_LIMIT = 100;

/**
 * Dead letters for operators: timeouts whose handler failed on every attempt (the rider webhook was
 * down for longer than the retries last). The trip change itself was applied once; what is left is
 * telling the rider. Once the cause is fixed, replay them: each runs again as due now, and its
 * handler finds the trip already changed and only sends the notice.
 * Put it behind your operators' authentication in a real service.
 */
@Controller('ops/dead-letters')
export class DeadLettersController {
  constructor(private readonly timeouts: TimeoutScheduler<RidesTopic>) {}

  /** Lists dead letters of one topic or all, oldest first. */
  @Get()
  async list(@Query() query: ListDeadLettersQuery): Promise<DeadLetterView[]> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const topics = query.topic === undefined ? RIDES_TOPICS : [query.topic];
    const pages = await Promise.all(topics.map((topic) => this.timeouts.listDead(topic, { limit })));
    return pages
      .flat()
      .sort((a, b) => a.deadAt - b.deadAt)
      .slice(0, limit)
      .map((letter) => ({
        topic: letter.topic as RidesTopic,
        id: letter.id,
        attempts: letter.attempts,
        lastError: letter.lastError,
        deadAt: new Date(letter.deadAt).toISOString(),
        scheduledAt: new Date(letter.scheduledAt).toISOString(),
      }));
  }

  /** Replays dead letters of a topic (the given ids, or all): they fire again at once with attempts reset. */
  @Post('replay')
  @HttpCode(HttpStatus.OK)
  async replay(@Body() body: ReplayDeadLettersDto): Promise<{ topic: RidesTopic; replayed: number }> {
    return { topic: body.topic, replayed: await this.timeouts.replayDead(body.topic, body.ids) };
  }
}
