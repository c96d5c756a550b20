import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { chromium, type BrowserContext } from 'playwright-core';
import request from 'supertest';
import { RedisServer } from '@durable-timeout/redis-testing';
import { DURABLE_TIMEOUTS, DurableTimeoutModule, OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { AdminNotProtectedError, DurableTimeoutAdminModule, InvalidAdminOptionsError } from '@durable-timeout/nestjs/admin';
import { randomBytes } from 'node:crypto';
import { aesGcmCodec, DurableTimeouts } from '@durable-timeout/core';
import { repoRoot } from './support/build-fixtures.js';
import { uniquePrefix, waitFor } from './support/wait-for.js';

/** Debian's chromium (`npm test` installs it when missing); never a downloaded browser. */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TOKEN = 'admin-token-for-the-e2e-test-0123';
const SECRET = 'card 4111 1111 1111 1111';
const BULK = 100_000;

/** Handler runs seen by the app, and the ids whose handler succeeds from now on. */
const runs: Array<{ id: string; attempt: number }> = [];
const healed = new Set<string>();

@Injectable()
class PaymentTimeouts {
  @OnTimeout('payment')
  onPayment(event: TimeoutEvent<{ card: string }>): void {
    runs.push({ id: event.id, attempt: event.attempt });
    if (event.id.startsWith('poison') && !healed.has(event.id)) throw new Error(`card service down for ${event.id}`);
  }
}

/** The application's own guard, standing in for "admin users only". */
@Injectable()
class StaffOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-staff'] === 'yes';
  }
}

/** A persistent context of Debian's chromium with a fresh profile; `password` answers the Basic prompt. */
async function openBrowser(password?: string): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'dt-admin-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    ...(password === undefined ? {} : { httpCredentials: { username: 'ops', password } }),
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

describe('DurableTimeoutAdminModule in a real browser, against a real Redis', () => {
  let redis: RedisServer;
  let app: INestApplication;
  let engine: DurableTimeouts;
  let pageUrl: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`node scripts/ensure-tools.mjs chromium\` (npm test does), or set CHROMIUM_PATH.`);
    redis = await RedisServer.start();
    @Module({
      imports: [
        DurableTimeoutModule.forRoot({
          connection: redis.url,
          prefix: uniquePrefix('admin'),
          // `schedules` holds the recurring schedules; nothing handles them here, so none fires.
          topics: { payment: { slots: 4, maxAttempts: 1 }, bulk: { slots: 16 }, schedules: { slots: 2 } },
          drainMs: 500,
          isGlobal: true,
        }),
        DurableTimeoutAdminModule.forRoot({ token: TOKEN, path: 'ops/timeouts' }),
      ],
      providers: [PaymentTimeouts],
    })
    class AdminAppModule {}
    app = await NestFactory.create(AdminAppModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    pageUrl = `${await app.getUrl()}/ops/timeouts`;
    engine = app.get(DURABLE_TIMEOUTS);

    for (const id of ['poison-1', 'poison-2']) await engine.schedule('payment', id, { delayMs: 0, payload: { card: SECRET } });
    await waitFor('two dead letters', async () => (await engine.stats('payment')).dead === 2);
    const now = Date.now();
    for (let n = 1; n <= 8; n++) await engine.schedule('payment', `order-${n}`, { at: now + 60_000 * n, payload: { card: SECRET } });
    await engine.schedules.upsert('nightly-report', { cron: '0 2 * * *', timeZone: 'Europe/Berlin', payload: { card: SECRET } });
    await engine.schedules.upsert('cache-refresh', { everyMs: 3_600_000, catchUp: 'skip' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('refuses to mount without a guard or a token, and with a guessable token', async () => {
    // A connection of our own: the engines of the refused modules never open (nor leave open) one.
    const client = redis.client();
    const mount = (admin: ReturnType<typeof DurableTimeoutAdminModule.forRoot>) =>
      Test.createTestingModule({
        imports: [DurableTimeoutModule.forRoot({ connection: client, topics: { payment: {} }, isGlobal: true }), admin],
      }).compile();
    try {
      await expect(mount(DurableTimeoutAdminModule.forRoot({}))).rejects.toBeInstanceOf(AdminNotProtectedError);
      await expect(mount(DurableTimeoutAdminModule.forRoot({ showPayloads: true }))).rejects.toThrow(/refuses to mount without protection/);
      await expect(mount(DurableTimeoutAdminModule.forRoot({ token: 'short' }))).rejects.toBeInstanceOf(InvalidAdminOptionsError);
      expect(() => DurableTimeoutAdminModule.forRoot({ token: TOKEN, path: '../escape' })).toThrow(InvalidAdminOptionsError);
    } finally {
      await client.quit();
    }
  });

  it('asks a browser without the token to log in, and shows it nothing', async () => {
    const browser = await openBrowser();
    try {
      // The challenge a browser answers with its login prompt (headless, it would wait for it).
      const response = await browser.context.request.get(pageUrl);
      expect(response.status()).toBe(401);
      expect(response.headers()['www-authenticate']).toContain('Basic');
      expect(await response.text()).not.toContain('poison-1');
    } finally {
      await browser.close();
    }
    const wrong = await openBrowser('not-the-token-at-all-sorry');
    try {
      const page = await wrong.context.newPage();
      const response = await page.goto(pageUrl);
      expect(response?.status()).toBe(401);
      expect(await page.content()).not.toContain('poison-1');
    } finally {
      await wrong.close();
    }
  });

  it('loads the page: counts per topic, the slot spread, the next due timeouts and the dead letters, payloads hidden', async () => {
    const browser = await openBrowser(TOKEN);
    try {
      const page = await browser.context.newPage();
      const scriptErrors: string[] = [];
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') scriptErrors.push(message.text());
      });
      const response = await page.goto(`${pageUrl}?topic=payment`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      const topicRow = (name: string) => page.locator('table.topics tbody tr', { has: page.locator(`a:text-is("${name}")`) });
      expect(await topicRow('payment').locator('td').allInnerTexts()).toEqual(['payment', '8', '0', '2', '-']);
      expect(await topicRow('bulk').locator('td').nth(1).innerText()).toBe('0');
      expect(await page.locator('.spread meter').count()).toBe(4);
      expect((await page.locator('.spread span').allInnerTexts()).map((text) => Number(text.split(': ')[1])).reduce((sum, n) => sum + n, 0)).toBe(8);
      const pendingIds = await page.locator('table.pending tbody td.id').allInnerTexts();
      expect(pendingIds).toEqual(['order-1', 'order-2', 'order-3', 'order-4', 'order-5', 'order-6', 'order-7', 'order-8']);
      const deadRows = page.locator('table.dead tbody tr');
      expect(await deadRows.locator('td.id').allInnerTexts()).toEqual(['poison-1', 'poison-2']);
      expect(await deadRows.first().locator('td.error').innerText()).toBe('card service down for poison-1');
      expect(await page.content()).not.toContain('4111');
      expect(scriptErrors).toEqual([]);
      mkdirSync(`${repoRoot}.tmp`, { recursive: true });
      await page.screenshot({ path: process.env['DURABLE_TIMEOUT_ADMIN_SCREENSHOT'] ?? `${repoRoot}.tmp/admin-dashboard.png`, fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('replays a dead letter when its Replay button is clicked: the handler runs again and the letter is gone', async () => {
    const browser = await openBrowser(TOKEN);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${pageUrl}?topic=payment`);
      healed.add('poison-1');
      const runsBefore = runs.filter((run) => run.id === 'poison-1').length;
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.accept();
      });
      await Promise.all([
        page.waitForEvent('load'),
        page.locator('table.dead tr[data-id="poison-1"] button[data-action="replay"]').click(),
      ]);
      expect(dialogs).toEqual(['Replay dead letter "poison-1" of payment? It becomes due now and its handler runs again.']);
      expect(await page.locator('#flash').innerText()).toBe('Replayed 1 dead letter of payment.');
      await waitFor('the replayed handler run', () => runs.filter((run) => run.id === 'poison-1').length > runsBefore);
      expect(runs.filter((run) => run.id === 'poison-1').at(-1)).toEqual({ id: 'poison-1', attempt: 1 });
      await waitFor('poison-1 to be acked', async () => (await engine.get('payment', 'poison-1')) === null);
      await page.reload();
      expect(await page.locator('table.dead tbody td.id').allInnerTexts()).toEqual(['poison-2']);
      expect(await page.locator('#figure-dead').innerText()).toBe('1');
    } finally {
      await browser.close();
    }
  });

  it('pauses and resumes the topic with its button: the engine sees it, the page shows it', async () => {
    const browser = await openBrowser(TOKEN);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${pageUrl}?topic=bulk`);
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.accept();
      });
      expect(await page.locator('#paused-badge').count()).toBe(0);
      await Promise.all([page.waitForEvent('load'), page.locator('button[data-action="pause"]').click()]);
      expect(dialogs).toEqual(['Pause bulk? No instance fires its timeouts until it is resumed; schedules and cancels go on.']);
      expect(await page.locator('#flash').innerText()).toBe('Paused bulk.');
      expect(await page.locator('#paused-badge').innerText()).toBe('paused');
      // The overview marks it too, from the counts it reads anyway.
      expect(await page.locator('table.topics tr', { has: page.locator('.paused') }).locator('a').allInnerTexts()).toEqual(['bulk']);
      expect(await engine.paused('bulk')).toBe(true);
      await Promise.all([page.waitForEvent('load'), page.locator('button[data-action="resume"]').click()]);
      expect(dialogs[1]).toBe('Resume bulk? What fell due while it was paused fires now.');
      expect(await page.locator('#flash').innerText()).toBe('Resumed bulk.');
      expect(await page.locator('#paused-badge').count()).toBe(0);
      expect(await engine.paused('bulk')).toBe(false);
    } finally {
      await browser.close();
    }
  });

  it('serves a JSON API behind the same token, and takes changes only with the page header', async () => {
    const http = request(app.getHttpServer());
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await http.get('/ops/timeouts/api/topics')).status).toBe(401);
    const topics = await http.get('/ops/timeouts/api/topics').set(auth).expect(200);
    expect(topics.body).toEqual(expect.arrayContaining([expect.objectContaining({ topic: 'payment', pending: 8 })]));
    const pending = await http.get('/ops/timeouts/api/topics/payment/pending?limit=2&offset=1').set(auth).expect(200);
    expect(pending.body.map((info: { id: string }) => info.id)).toEqual(['order-2', 'order-3']);
    expect(pending.body[0]).not.toHaveProperty('payload');
    const unknown = await http.get('/ops/timeouts/api/topics/parcel').set(auth).expect(404);
    // The operator's likely typo, with the topics there are, not the plain-Node set-up advice.
    expect(unknown.body.message).toBe('No topic "parcel" here: this application has "payment", "bulk", "schedules".');
    expect((await http.get('/ops/timeouts/api/topics/payment/dead?limit=lots').set(auth)).status).toBe(400);
    // A cross-site form cannot add the header: without it nothing changes.
    expect((await http.post('/ops/timeouts/api/topics/payment/dead/purge').set(auth).send({})).status).toBe(403);
    expect((await engine.stats('payment')).dead).toBe(1);
    expect((await http.post('/ops/timeouts/api/topics/payment/dead/purge').set(auth).set('x-durable-timeout-admin', '1').send({ ids: 'poison-2' })).status).toBe(400);
  });

  it('pauses and resumes a topic through the API, with the page header only', async () => {
    const http = request(app.getHttpServer());
    const auth = { authorization: `Bearer ${TOKEN}`, 'x-durable-timeout-admin': '1' };
    expect((await http.post('/ops/timeouts/api/topics/bulk/pause').set({ authorization: `Bearer ${TOKEN}` })).status).toBe(403);
    expect(await engine.paused('bulk')).toBe(false);
    const paused = await http.post('/ops/timeouts/api/topics/bulk/pause').set(auth).expect(200);
    expect(paused.body).toEqual({ topic: 'bulk', paused: true, pausedAt: expect.any(Number) });
    expect(await engine.paused('bulk')).toBe(true);
    expect((await http.post('/ops/timeouts/api/topics/bulk/resume').set(auth).send({ shift: 'yes' })).status).toBe(400);
    const resumed = await http.post('/ops/timeouts/api/topics/bulk/resume').set(auth).send({}).expect(200);
    expect(resumed.body).toEqual({ topic: 'bulk', resumed: true, pausedMs: expect.any(Number), shifted: 0 });
    expect(await engine.paused('bulk')).toBe(false);
    expect((await http.post('/ops/timeouts/api/topics/parcel/pause').set(auth)).status).toBe(404);
  });

  it('lists the recurring schedules with their recurrence, time zone, next occurrence, catch-up and pause, and removes one with its button', async () => {
    expect(await engine.schedules.pause('nightly-report')).toBe(true);
    const listed = await engine.schedules.list();
    const browser = await openBrowser(TOKEN);
    try {
      const page = await browser.context.newPage();
      const scriptErrors: string[] = [];
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      await page.goto(pageUrl);
      const rows = page.locator('table.schedules tbody tr');
      expect(await rows.locator('td:first-child').allInnerTexts()).toEqual(['cache-refresh', 'nightly-report']);
      const cells = async (name: string) => (await page.locator(`table.schedules tr[data-name="${name}"] td`).allInnerTexts()).map((text) => text.trim());
      const nightly = listed.find((schedule) => schedule.name === 'nightly-report')!;
      expect(await cells('nightly-report')).toEqual(['nightly-report', '0 2 * * *', 'Europe/Berlin', new Date(nightly.nextAt).toISOString(), expect.stringMatching(/^in /), 'once', 'pending, paused', 'Remove']);
      const hourly = listed.find((schedule) => schedule.name === 'cache-refresh')!;
      expect(await cells('cache-refresh')).toEqual(['cache-refresh', 'every 1 h 0 min', '-', new Date(hourly.nextAt).toISOString(), expect.stringMatching(/^in /), 'skip', 'pending', 'Remove']);
      expect(await page.content()).not.toContain('4111');

      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.accept();
      });
      await Promise.all([page.waitForEvent('load'), page.locator('table.schedules tr[data-name="cache-refresh"] button[data-action="remove-schedule"]').click()]);
      expect(dialogs).toEqual([
        'Remove the recurring schedule cache-refresh? No occurrence of it fires any more (one running now runs to its end). An application that declares it creates it again when it starts.',
      ]);
      expect(await page.locator('#flash').innerText()).toBe('Removed the recurring schedule cache-refresh.');
      expect(await rows.locator('td:first-child').allInnerTexts()).toEqual(['nightly-report']);
      expect((await engine.schedules.list()).map((schedule) => schedule.name)).toEqual(['nightly-report']);
      expect(scriptErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('serves the recurring schedules through the API, payloads hidden, and removes one only with the page header', async () => {
    await engine.schedules.upsert('api-made', { everyMs: 60_000 });
    const http = request(app.getHttpServer());
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await http.get('/ops/timeouts/api/schedules')).status).toBe(401);
    const schedules = await http.get('/ops/timeouts/api/schedules').set(auth).expect(200);
    expect(schedules.body).toEqual(expect.arrayContaining([{ name: 'api-made', everyMs: 60_000, catchUp: 'once', state: 'pending', nextAt: expect.any(Number), paused: false }]));
    expect(JSON.stringify(schedules.body)).not.toContain('4111');
    expect((await http.post('/ops/timeouts/api/schedules/api-made/remove').set(auth)).status).toBe(403);
    expect((await engine.schedules.list()).map((schedule) => schedule.name)).toContain('api-made');
    const marked = { ...auth, 'x-durable-timeout-admin': '1' };
    expect((await http.post('/ops/timeouts/api/schedules/api-made/remove').set(marked).expect(200)).body).toEqual({ removed: true });
    expect((await http.post('/ops/timeouts/api/schedules/api-made/remove').set(marked).expect(200)).body).toEqual({ removed: false });
    expect((await engine.schedules.list()).map((schedule) => schedule.name)).not.toContain('api-made');
  });

  it(`stays quick on a topic with ${BULK.toLocaleString('en-US')} pending: counts and pages, never whole sets`, async () => {
    const start = Date.now() + 3_600_000;
    const ids = Array.from({ length: BULK }, (_, n) => `bulk-${String(n).padStart(6, '0')}`);
    // 250 calls in flight at a time: each call has its own commandTimeoutMs from when it is made, and
    // 2,000 at once queued the last ones behind the others past it on a loaded machine.
    for (let from = 0; from < BULK; from += 250) {
      await Promise.all(ids.slice(from, from + 250).map((id, i) => engine.schedule('bulk', id, { at: start + from + i })));
    }
    const browser = await openBrowser(TOKEN);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${pageUrl}?topic=bulk`); // warm: connections, scripts
      const timings: string[] = [];
      for (let load = 0; load < 3; load++) {
        const started = performance.now();
        const response = await page.goto(`${pageUrl}?topic=bulk&pending=${load * 25}`);
        expect(response?.status()).toBe(200);
        const server = /Read and rendered in (\d+) ms/.exec(await page.locator('footer').innerText())![1];
        timings.push(`${Math.round(performance.now() - started)} ms (server ${server} ms)`);
      }
      expect(await page.locator('#figure-pending').innerText()).toBe('100,000');
      expect(await page.locator('table.pending tbody td.id').first().innerText()).toBe('bulk-000050');
      expect(await page.locator('.pager').first().innerText()).toContain('51-75 of 100,000');
      console.log(`admin page load at ${BULK.toLocaleString('en-US')} pending (16 slots): ${timings.join(', ')}`);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('DurableTimeoutAdminModule behind the application\'s own guard', () => {
  let redis: RedisServer;
  let app: INestApplication;
  const prefix = uniquePrefix('admin-guard');

  beforeAll(async () => {
    redis = await RedisServer.start();
    @Module({
      imports: [
        DurableTimeoutModule.forRoot({ connection: redis.url, prefix, topics: { payment: {} }, isGlobal: true }),
        DurableTimeoutAdminModule.forRootAsync({ guard: StaffOnlyGuard, useFactory: () => ({ showPayloads: true }) }),
      ],
    })
    class GuardedAppModule {}
    app = await NestFactory.create(GuardedAppModule, { logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('runs the guard on the page and the API, and shows payloads when enabled', async () => {
    const http = request(app.getHttpServer());
    expect((await http.get('/timeouts')).status).toBe(403);
    expect((await http.get('/timeouts/api/topics')).status).toBe(403);
    const engine = app.get<DurableTimeouts>(DURABLE_TIMEOUTS);
    await engine.schedule('payment', 'order-1', { delayMs: 60_000, payload: { note: 'visible' } });
    const page = await http.get('/timeouts').set('x-staff', 'yes').expect(200);
    expect(page.text).toContain('order-1');
    expect(page.text).toContain('visible');
    const pending = await http.get('/timeouts/api/topics/payment/pending').set('x-staff', 'yes').expect(200);
    expect(pending.body[0]).toMatchObject({ id: 'order-1', payload: { note: 'visible' } });
  });

  it('has no schedules section and answers 404 for schedules when the application declares no schedules topic', async () => {
    const http = request(app.getHttpServer());
    const page = await http.get('/timeouts').set('x-staff', 'yes').expect(200);
    expect(page.text).not.toContain('Recurring schedules');
    const missing = await http.get('/timeouts/api/schedules').set('x-staff', 'yes').expect(404);
    expect(missing.body.message).toBe('No recurring schedules here: this application does not declare the topic "schedules" they live in.');
  });

  it('shows "encrypted" for a payload the engine cannot decode (its codec is elsewhere), never its bytes', async () => {
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });
    const producer = new DurableTimeouts({ connection: redis.url, prefix, codec, topics: { payment: {} }, logger: null });
    await producer.schedule('payment', 'sealed-1', { delayMs: 30_000, payload: { note: 'sealed secret' } });
    await producer.stop();
    const http = request(app.getHttpServer());
    const page = await http.get('/timeouts?topic=payment').set('x-staff', 'yes').expect(200);
    expect(page.text).toMatch(/<td class="payload encrypted" title="[^"]*encoded by a codec[^"]*">encrypted<\/td>/);
    expect(page.text).not.toContain('sealed secret');
    const pending = await http.get('/timeouts/api/topics/payment/pending').set('x-staff', 'yes').expect(200);
    expect(pending.body.find((info: { id: string }) => info.id === 'sealed-1')).toMatchObject({ payload: null, payloadError: expect.stringContaining('encoded by a codec') });
  });
});
