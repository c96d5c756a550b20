import {
  BadRequestException,
  Body,
  Controller,
  ForbiddenException,
  Get,
  Header,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
  type CanActivate,
  type Type,
} from '@nestjs/common';
import type { TopicPauseState, TopicResumeResult, TopicStats } from '@durable-timeout/core';
import { ADMIN_PAGE_SCRIPT } from './admin-page.script.js';
import { ADMIN_PAGE_STYLE } from './admin-page.style.js';
import { renderAdminPage, type AdminPageTopic } from './admin-page.html.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { ADMIN_CSRF_HEADER, DURABLE_TIMEOUT_ADMIN_SETTINGS } from './durable-timeout-admin.constants.js';
import type { DurableTimeoutAdminSettings } from './durable-timeout-admin-options.interface.js';
import { adminMessages } from './durable-timeout-admin.messages.js';
import { DurableTimeoutAdminService, type AdminDeadLetter, type AdminSchedule, type AdminTimeout, type AdminTopicDetail } from './durable-timeout-admin.service.js';

/** The page may load only its own script and style, talk only to its own API, and be framed by nobody. */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The parts of an Express or Fastify request the page reads: its own URL, to address its script and API. */
interface PageRequest {
  originalUrl?: string;
  url: string;
}

/**
 * Routes of the admin page and its JSON API, relative to the mount path. A subclass per mount
 * (`adminControllerFor`) carries the path and the guards.
 */
export class DurableTimeoutAdminRoutes {
  constructor(
    private readonly admin: DurableTimeoutAdminService,
    @Inject(DURABLE_TIMEOUT_ADMIN_SETTINGS) private readonly settings: DurableTimeoutAdminSettings,
  ) {}

  /** The page, rendered on the server: `?topic=` selects a topic, `?pending=` and `?dead=` page its tables. */
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', PAGE_POLICY)
  @Header('Cache-Control', 'no-store')
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Referrer-Policy', 'no-referrer')
  async page(
    @Req() request: PageRequest,
    @Query('topic') topic?: string,
    @Query('pending') pendingOffset?: string,
    @Query('dead') deadOffset?: string,
  ): Promise<string> {
    const started = performance.now();
    const base = basePathOf(request);
    const [overview, schedules] = await Promise.all([this.admin.overview(), this.admin.hasSchedules ? this.admin.schedules() : undefined]);
    const name = topic ?? overview[0]?.topic;
    let selected: AdminPageTopic | undefined;
    if (name !== undefined) {
      const pageSize = this.settings.pageSize;
      const pending = offsetOf('pending', pendingOffset);
      const dead = offsetOf('dead', deadOffset);
      const [detail, pendingRows, deadRows] = await Promise.all([
        this.admin.topic(name),
        this.admin.pending(name, pending, pageSize),
        this.admin.dead(name, dead, pageSize),
      ]);
      selected = { detail, pending: pendingRows, pendingOffset: pending, dead: deadRows, deadOffset: dead };
    }
    return renderAdminPage({
      base,
      overview,
      schedules,
      selected,
      pageSize: this.settings.pageSize,
      showPayloads: this.settings.showPayloads,
      now: Date.now(),
      renderMs: performance.now() - started,
    });
  }

  /** The page's one script: the replay, purge, pause, resume and remove buttons, and the optional auto-refresh. */
  @Get('admin.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Header('X-Content-Type-Options', 'nosniff')
  script(): string {
    return ADMIN_PAGE_SCRIPT;
  }

  /** The page's style sheet. */
  @Get('admin.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Header('X-Content-Type-Options', 'nosniff')
  style(): string {
    return ADMIN_PAGE_STYLE;
  }

  /** Totals of every topic. */
  @Get('api/topics')
  @Header('Cache-Control', 'no-store')
  topics(): Promise<TopicStats[]> {
    return this.admin.overview();
  }

  /** One topic: totals and every slot. */
  @Get('api/topics/:topic')
  @Header('Cache-Control', 'no-store')
  topic(@Param('topic') topic: string): Promise<AdminTopicDetail> {
    return this.admin.topic(topic);
  }

  /** A page of the next due timeouts (`offset`, `limit`, defaults 0 and the page size). */
  @Get('api/topics/:topic/pending')
  @Header('Cache-Control', 'no-store')
  pending(@Param('topic') topic: string, @Query('offset') offset?: string, @Query('limit') limit?: string): Promise<AdminTimeout[]> {
    return this.admin.pending(topic, offsetOf('offset', offset), integerOf('limit', limit, this.settings.pageSize));
  }

  /** A page of dead letters, oldest first. */
  @Get('api/topics/:topic/dead')
  @Header('Cache-Control', 'no-store')
  dead(@Param('topic') topic: string, @Query('offset') offset?: string, @Query('limit') limit?: string): Promise<AdminDeadLetter[]> {
    return this.admin.dead(topic, offsetOf('offset', offset), integerOf('limit', limit, this.settings.pageSize));
  }

  /** Replays dead letters: `{ "ids": [...] }`, or `{}` for all. Needs the page's header (no cross-site requests). */
  @Post('api/topics/:topic/dead/replay')
  @HttpCode(200)
  async replay(@Param('topic') topic: string, @Body() body: unknown, @Headers(ADMIN_CSRF_HEADER) marker?: string): Promise<{ replayed: number }> {
    requireMarker(marker);
    return { replayed: await this.admin.replay(topic, idsOf(body)) };
  }

  /** Purges dead letters: `{ "ids": [...] }`, or `{}` for all. Needs the page's header. */
  @Post('api/topics/:topic/dead/purge')
  @HttpCode(200)
  async purge(@Param('topic') topic: string, @Body() body: unknown, @Headers(ADMIN_CSRF_HEADER) marker?: string): Promise<{ purged: number }> {
    requireMarker(marker);
    return { purged: await this.admin.purge(topic, idsOf(body)) };
  }

  /** Every recurring schedule by name (docs/SCHEDULES.md); 404 when the application declares no schedules topic. */
  @Get('api/schedules')
  @Header('Cache-Control', 'no-store')
  schedules(): Promise<AdminSchedule[]> {
    return this.admin.schedules();
  }

  /** Removes a recurring schedule: `{ "removed": false }` when there was none. Needs the page's header. */
  @Post('api/schedules/:name/remove')
  @HttpCode(200)
  async removeSchedule(@Param('name') name: string, @Headers(ADMIN_CSRF_HEADER) marker?: string): Promise<{ removed: boolean }> {
    requireMarker(marker);
    return { removed: await this.admin.removeSchedule(name) };
  }

  /** Pauses the topic on every instance (docs/FLOW-CONTROL.md). Needs the page's header. */
  @Post('api/topics/:topic/pause')
  @HttpCode(200)
  pause(@Param('topic') topic: string, @Headers(ADMIN_CSRF_HEADER) marker?: string): Promise<TopicPauseState> {
    requireMarker(marker);
    return this.admin.pause(topic);
  }

  /** Resumes the topic: `{ "shift": true }` moves its pending due times later by the pause, `{}` fires what fell due. Needs the page's header. */
  @Post('api/topics/:topic/resume')
  @HttpCode(200)
  resume(@Param('topic') topic: string, @Body() body: unknown, @Headers(ADMIN_CSRF_HEADER) marker?: string): Promise<TopicResumeResult> {
    requireMarker(marker);
    return this.admin.resume(topic, shiftOf(body));
  }
}

/**
 * The controller of one mount: the routes under `path`, behind the token guard and the
 * application's own guard (when given).
 */
export function adminControllerFor(path: string, guard?: Type<CanActivate> | CanActivate): Type<DurableTimeoutAdminRoutes> {
  @Controller(path)
  @UseGuards(AdminTokenGuard, ...(guard === undefined ? [] : [guard]))
  class DurableTimeoutAdminController extends DurableTimeoutAdminRoutes {}
  return DurableTimeoutAdminController;
}

/** The page's own path (under any global prefix), without query or trailing slash. */
function basePathOf(request: PageRequest): string {
  const url = request.originalUrl ?? request.url;
  return url.split('?')[0]!.replace(/\/+$/, '');
}

function integerOf(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,6}$/.test(value)) throw new BadRequestException(adminMessages.badInteger(name, value));
  return Number(value);
}

function offsetOf(name: string, value: string | undefined): number {
  return integerOf(name, value, 0);
}

function requireMarker(marker: string | undefined): void {
  if (marker !== '1') throw new ForbiddenException(adminMessages.missingCsrfHeader(ADMIN_CSRF_HEADER));
}

/** The `shift` of a resume body: false when absent; a boolean or a 400. */
function shiftOf(body: unknown): boolean {
  if (body === undefined || body === null || (typeof body === 'object' && !('shift' in body))) return false;
  const shift = (body as { shift?: unknown }).shift;
  if (typeof shift !== 'boolean') throw new BadRequestException(adminMessages.badShift());
  return shift;
}

/** The ids of a replay or purge body; undefined for every dead letter. */
function idsOf(body: unknown): string[] | undefined {
  if (body === undefined || body === null || (typeof body === 'object' && !('ids' in body))) return undefined;
  const ids = (body as { ids?: unknown }).ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1_000 || !ids.every((id) => typeof id === 'string')) {
    throw new BadRequestException(adminMessages.badIds());
  }
  return ids as string[];
}
