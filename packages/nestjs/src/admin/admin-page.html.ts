import type { TopicStats } from '@durable-timeout/core';
import type { AdminDeadLetter, AdminSchedule, AdminTimeout, AdminTopicDetail } from './durable-timeout-admin.service.js';

/** The selected topic of the page, with one page of each of its tables. */
export interface AdminPageTopic {
  detail: AdminTopicDetail;
  pending: AdminTimeout[];
  pendingOffset: number;
  dead: AdminDeadLetter[];
  deadOffset: number;
}

/** Everything the page shows. */
export interface AdminPageModel {
  /** The page's own path: its script, style sheet and API live under it. */
  base: string;
  overview: TopicStats[];
  /** Every recurring schedule; undefined when the application declares no schedules topic. */
  schedules: AdminSchedule[] | undefined;
  selected: AdminPageTopic | undefined;
  pageSize: number;
  showPayloads: boolean;
  /** Server time of rendering, ms since the epoch. */
  now: number;
  /** How long reading Redis and rendering took, ms. */
  renderMs: number;
}

/** Renders the admin page. Every value from Redis is escaped; nothing runs inline (the page's policy forbids it). */
export function renderAdminPage(model: AdminPageModel): string {
  const { base, selected } = model;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${selected ? `${escape(selected.detail.topic)} · ` : ''}durable-timeout</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${attr(`${base}/admin.css`)}">
<script src="${attr(`${base}/admin.js`)}" defer></script>
</head>
<body data-api="${attr(`${base}/api`)}">
<header>
  <h1>durable-timeout</h1>
  <nav>
    <a href="${attr(selfLink(selected?.detail.topic, 0, 0))}">Refresh</a>
    <label><input type="checkbox" id="auto-refresh"> every 10 s</label>
  </nav>
</header>
<p id="flash" class="flash" role="status" hidden></p>
<main>
${renderOverview(model)}
${model.schedules ? renderSchedules(model, model.schedules) : ''}
${selected ? renderTopic(model, selected) : '<p class="empty">This application configures no topics.</p>'}
</main>
<footer>Read and rendered in ${Math.round(model.renderMs)} ms at ${escape(new Date(model.now).toISOString())}. ${
    model.showPayloads ? 'Payloads are shown.' : 'Payloads are hidden (option <code>showPayloads</code>).'
  }</footer>
</body>
</html>
`;
}

function renderOverview(model: AdminPageModel): string {
  const rows = model.overview
    .map((stats) => {
      const current = stats.topic === model.selected?.detail.topic;
      return `<tr${current ? ' class="current"' : ''}>
  <td><a href="${attr(selfLink(stats.topic, 0, 0))}"${current ? ' aria-current="page"' : ''}>${escape(stats.topic)}</a>${stats.paused ? ' <span class="paused">paused</span>' : ''}</td>
  <td class="num">${count(stats.pending)}</td>
  <td class="num">${count(stats.firing)}</td>
  <td class="num${stats.dead > 0 ? ' bad' : ''}">${count(stats.dead)}</td>
  <td class="num${stats.oldestOverdueMs > 0 ? ' warn' : ''}">${age(stats.oldestOverdueMs)}</td>
</tr>`;
    })
    .join('\n');
  return `<section aria-labelledby="topics-title">
<h2 id="topics-title">Topics</h2>
<table class="topics">
<thead><tr><th>topic</th><th class="num">pending</th><th class="num">firing</th><th class="num">dead</th><th class="num">oldest overdue</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

function renderSchedules(model: AdminPageModel, schedules: AdminSchedule[]): string {
  const rows = schedules
    .map(
      (schedule) => `<tr data-name="${attr(schedule.name)}">
  <td class="id">${escape(schedule.name)}</td>
  <td class="id">${schedule.cron !== undefined ? escape(schedule.cron) : `every ${duration(schedule.everyMs ?? 0)}`}</td>
  <td>${escape(schedule.timeZone ?? (schedule.cron !== undefined ? 'UTC' : '-'))}</td>
  <td><time datetime="${attr(iso(schedule.nextAt))}">${escape(iso(schedule.nextAt))}</time></td>
  <td class="${schedule.state === 'pending' && schedule.nextAt <= model.now ? 'warn' : ''}">${schedule.state === 'pending' ? relative(schedule.nextAt, model.now) : ''}</td>
  <td>${escape(schedule.catchUp)}</td>
  <td class="${schedule.state === 'dead' ? 'bad' : schedule.paused ? 'warn' : ''}">${escape(schedule.paused ? `${schedule.state}, paused` : schedule.state)}</td>
  ${model.showPayloads ? `<td class="payload">${escape(clip(JSON.stringify(schedule.payload) ?? '-', 200))}</td>` : ''}
  <td class="actions"><button type="button" class="danger" data-action="remove-schedule" data-name="${attr(schedule.name)}">Remove</button></td>
</tr>`,
    )
    .join('\n');
  const columns = model.showPayloads ? 9 : 8;
  return `<section aria-labelledby="schedules-title">
<h2 id="schedules-title">Recurring schedules</h2>
<table class="schedules">
<thead><tr><th>name</th><th>when</th><th>time zone</th><th>next occurrence</th><th></th><th>catch-up</th><th>state</th>${model.showPayloads ? '<th>payload</th>' : ''}<th></th></tr></thead>
<tbody>
${rows || `<tr><td colspan="${columns}" class="empty">No recurring schedules.</td></tr>`}
</tbody>
</table>
</section>`;
}

function renderTopic(model: AdminPageModel, selected: AdminPageTopic): string {
  const { detail } = selected;
  const topic = detail.topic;
  return `<section class="topic" aria-labelledby="topic-title" data-topic="${attr(topic)}">
<h2 id="topic-title">${escape(topic)}${detail.paused ? ' <span class="paused" id="paused-badge">paused</span>' : ''}</h2>
<p class="actions">${
    detail.paused
      ? `<button type="button" data-action="resume" data-topic="${attr(topic)}">Resume</button> paused since ${escape(new Date(detail.pausedAt ?? 0).toISOString())}: no instance fires its timeouts`
      : `<button type="button" class="danger" data-action="pause" data-topic="${attr(topic)}">Pause</button>`
  }</p>
<dl class="figures">
  <div><dt>pending</dt><dd id="figure-pending">${count(detail.pending)}</dd></div>
  <div><dt>firing</dt><dd id="figure-firing">${count(detail.firing)}</dd></div>
  <div class="${detail.dead > 0 ? 'bad' : ''}"><dt>dead</dt><dd id="figure-dead">${count(detail.dead)}</dd></div>
  <div class="${detail.oldestOverdueMs > 0 ? 'warn' : ''}"><dt>oldest overdue</dt><dd>${age(detail.oldestOverdueMs)}</dd></div>
  <div><dt>slots</dt><dd>${detail.perSlot.length}</dd></div>
</dl>
${renderSpread(detail)}
${renderPending(model, selected)}
${renderDead(model, selected)}
</section>`;
}

function renderSpread(detail: AdminTopicDetail): string {
  const pendings = detail.perSlot.map((slot) => slot.pending);
  const max = Math.max(1, ...pendings);
  const mean = pendings.reduce((sum, value) => sum + value, 0) / Math.max(1, pendings.length);
  const meters = detail.perSlot
    .map((slot) => {
      const label = `slot ${slot.slot}: ${count(slot.pending)} pending, ${count(slot.firing)} firing, ${count(slot.dead)} dead` +
        (slot.oldestOverdueMs > 0 ? `, oldest overdue ${age(slot.oldestOverdueMs)}` : '');
      return `<div class="slot" title="${attr(label)}"><meter min="0" max="${max}" value="${slot.pending}" aria-label="${attr(label)}"></meter><span>${slot.slot}: ${count(slot.pending)}</span></div>`;
    })
    .join('');
  return `<h3>Slot spread</h3>
<div class="spread">${meters}</div>
<p class="note">pending per slot: min ${count(Math.min(...pendings))}, max ${count(Math.max(...pendings))}, mean ${mean.toFixed(1)}</p>`;
}

function renderPending(model: AdminPageModel, selected: AdminPageTopic): string {
  const { detail, pending, pendingOffset } = selected;
  const rows = pending
    .map(
      (info) => `<tr>
  <td class="id">${escape(info.id)}</td>
  <td><time datetime="${attr(iso(info.dueAt))}">${escape(iso(info.dueAt))}</time></td>
  <td class="${info.state === 'firing' ? '' : info.dueAt <= model.now ? 'warn' : ''}">${info.state === 'firing' ? 'firing now' : relative(info.dueAt, model.now)}</td>
  <td class="num">${info.attempt}</td>
  <td class="error">${escape(info.lastError ?? '')}</td>
  ${model.showPayloads ? payloadCell(info) : ''}
</tr>`,
    )
    .join('\n');
  return `<h3>Next due</h3>
${pager(detail.topic, 'pending', pendingOffset, selected.deadOffset, pending.length, detail.pending, model.pageSize)}
<table class="pending">
<thead><tr><th>id</th><th>due</th><th></th><th class="num">attempt</th><th>last error</th>${model.showPayloads ? '<th>payload</th>' : ''}</tr></thead>
<tbody>
${rows || `<tr><td colspan="${model.showPayloads ? 6 : 5}" class="empty">Nothing pending.</td></tr>`}
</tbody>
</table>`;
}

/**
 * The payload cell of a row: its JSON, clipped; `encrypted` for one the engine could not decode
 * (encoded by a codec it has no key for), with the reason in its title.
 */
function payloadCell(record: { payload?: unknown; payloadError?: string }): string {
  if (record.payloadError !== undefined) return `<td class="payload encrypted" title="${attr(record.payloadError)}">encrypted</td>`;
  return `<td class="payload">${escape(clip(JSON.stringify(record.payload) ?? 'null', 200))}</td>`;
}

function renderDead(model: AdminPageModel, selected: AdminPageTopic): string {
  const { detail, dead, deadOffset } = selected;
  const topic = attr(detail.topic);
  const rows = dead
    .map(
      (letter) => `<tr data-id="${attr(letter.id)}">
  <td class="id">${escape(letter.id)}</td>
  <td><time datetime="${attr(iso(letter.deadAt))}">${escape(iso(letter.deadAt))}</time></td>
  <td class="num">${letter.attempts}</td>
  <td class="error">${escape(letter.lastError)}</td>
  ${model.showPayloads ? payloadCell(letter) : ''}
  <td class="actions">
    <button type="button" data-action="replay" data-topic="${topic}" data-id="${attr(letter.id)}">Replay</button>
    <button type="button" class="danger" data-action="purge" data-topic="${topic}" data-id="${attr(letter.id)}">Purge</button>
  </td>
</tr>`,
    )
    .join('\n');
  const bulk =
    detail.dead > 0
      ? `<p class="bulk">
  <button type="button" data-action="replay" data-topic="${topic}">Replay all ${count(detail.dead)}</button>
  <button type="button" class="danger" data-action="purge" data-topic="${topic}">Purge all ${count(detail.dead)}</button>
</p>`
      : '';
  return `<h3>Dead letters</h3>
${bulk}
${pager(detail.topic, 'dead', selected.pendingOffset, deadOffset, dead.length, detail.dead, model.pageSize)}
<table class="dead">
<thead><tr><th>id</th><th>died</th><th class="num">attempts</th><th>last error</th>${model.showPayloads ? '<th>payload</th>' : ''}<th></th></tr></thead>
<tbody>
${rows || `<tr><td colspan="${model.showPayloads ? 6 : 5}" class="empty">No dead letters.</td></tr>`}
</tbody>
</table>`;
}

/** "1-25 of 12,345" with links to the previous and next pages of one table, the other table's page kept. */
function pager(topic: string, table: 'pending' | 'dead', pendingOffset: number, deadOffset: number, shown: number, total: number, pageSize: number): string {
  const offset = table === 'pending' ? pendingOffset : deadOffset;
  const link = (to: number) => attr(table === 'pending' ? selfLink(topic, to, deadOffset) : selfLink(topic, pendingOffset, to));
  const previous = offset > 0 ? `<a href="${link(Math.max(0, offset - pageSize))}" rel="prev">earlier</a>` : '';
  // The engine pages at most 10,000 deep.
  const next = offset + shown < total && offset + 2 * pageSize <= 10_000 ? `<a href="${link(offset + pageSize)}" rel="next">later</a>` : '';
  const range = shown === 0 ? `0 of ${count(total)}` : `${count(offset + 1)}-${count(offset + shown)} of ${count(total)}`;
  return `<p class="pager">${range} ${previous} ${next}</p>`;
}

function selfLink(topic: string | undefined, pendingOffset: number, deadOffset: number): string {
  const query = new URLSearchParams();
  if (topic !== undefined) query.set('topic', topic);
  if (pendingOffset > 0) query.set('pending', String(pendingOffset));
  if (deadOffset > 0) query.set('dead', String(deadOffset));
  const text = query.toString();
  return text ? `?${text}` : '?';
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A duration for people: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`. */
function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
}

function age(ms: number): string {
  return ms > 0 ? duration(ms) : '-';
}

function relative(dueAt: number, now: number): string {
  return dueAt > now ? `in ${duration(dueAt - now)}` : `overdue ${duration(now - dueAt)}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Escapes text for HTML content and attribute values. */
export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const attr = escape;
