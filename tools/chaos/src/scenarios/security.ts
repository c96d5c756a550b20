import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { aclRulesFor, DurableTimeouts } from '@durable-timeout/core';
import { RedisServer } from '@durable-timeout/redis-testing';
import { Redis } from 'ioredis';
import { makeCertificates } from '../harness/tls-certs.js';
import { SWEEP_MS, withRig, type RunContext, type Scenario, type ScenarioResult } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';
import type { ScheduleItem } from '../worker-protocol.js';

/**
 * The ACL rules of a least-privilege user of the library under `prefix` (without the `on` and
 * password parts): the library's own `aclRulesFor`, so the scenario proves the line the README gives.
 */
export function libraryAclRules(prefix: string): { rules: string[]; source: string } {
  return { rules: aclRulesFor(prefix).split(' '), source: 'aclRulesFor() of @durable-timeout/core' };
}

/** A small baseline run on a rig: `count` timeouts over 3 s on 2 workers; returns the rig's result. */
async function miniBaseline(name: string, context: RunContext, options: Parameters<typeof withRig>[2], count: number, extra: (rigPrefix: string) => Promise<Check[]>): Promise<ScenarioResult> {
  return withRig(name, context, options, async (rig) => {
    const checks = await extra(rig.prefix);
    await rig.pool.start(2);
    await rig.stream({ count, durationMs: 3_000, delayMs: [100, 1_500] });
    const settled = await rig.settle(20_000);
    return rig.result({ maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 1_000 }, [{ name: `${name}: settled`, ok: settled }, ...checks]);
  });
}

async function denied(call: Promise<unknown>): Promise<boolean> {
  return call.then(
    () => false,
    (error: unknown) => error instanceof Error && /NOPERM|no permissions/i.test(error.message),
  );
}

/** Sums the figures of parts of one scenario. */
function merge(name: string, parts: ScenarioResult[], checks: Check[], notes: string[]): ScenarioResult {
  const failures = [...parts.flatMap((part) => part.failures), ...checks.filter((check) => !check.ok).map((check) => (check.detail ? `${check.name}: ${check.detail}` : check.name))];
  return {
    name,
    scheduled: parts.reduce((total, part) => total + part.scheduled, 0),
    lost: parts.reduce((total, part) => total + part.lost, 0),
    duplicateEffects: parts.reduce((total, part) => total + part.duplicateEffects, 0),
    duplicateDeliveries: parts.reduce((total, part) => total + part.duplicateDeliveries, 0),
    maxLatenessMs: Math.max(...parts.map((part) => part.maxLatenessMs)),
    boundMs: Math.max(...parts.map((part) => part.boundMs ?? 0)),
    pass: failures.length === 0,
    failures,
    notes: [...parts.flatMap((part, i) => part.notes.map((note) => `part ${i + 1}: ${note}`)), ...notes],
  };
}

/**
 * 11. The baseline as an ACL user limited to the library's prefix and commands (FLUSHALL, KEYS,
 * CONFIG and other prefixes denied), then over TLS with a CA; a client trusting the wrong CA fails.
 */
export const aclTls: Scenario = {
  name: 'acl-tls',
  run: async (context) => {
    const count = context.quick ? 200 : 2_000;
    const password = randomBytes(12).toString('hex');
    const notes: string[] = [];

    const aclServer = await RedisServer.start();
    const admin = aclServer.client();
    let aclPart: ScenarioResult;
    try {
      // The rig's prefix is random, so the user is made inside, once the prefix is known.
      const userUrl = `redis://chaos-app:${password}@${aclServer.host}:${aclServer.port}`;
      const user = new Redis(userUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      user.on('error', () => undefined);
      try {
        aclPart = await miniBaseline('acl-tls', context, { redis: aclServer, workerConnection: userUrl, harnessConnection: userUrl }, count, async (prefix) => {
          const { rules, source } = libraryAclRules(prefix);
          await admin.call('ACL', 'SETUSER', 'chaos-app', 'reset', 'on', `>${password}`, ...rules);
          notes.push(`ACL (${source}): ACL SETUSER chaos-app on >*** ${rules.join(' ')}`);
          await user.connect();
          const other = new DurableTimeouts({ connection: userUrl, prefix: 'someone-else', topics: { chaos: {} }, logger: null });
          const otherPrefixDenied = await other.schedule('chaos', 'x', { delayMs: 1_000 }).then(() => false, () => true);
          await other.stop({ drainMs: 0 });
          return [
            { name: 'FLUSHALL denied to the library user', ok: await denied(user.flushall()) },
            { name: 'KEYS denied', ok: await denied(user.keys('*')) },
            { name: 'CONFIG denied', ok: await denied(user.config('GET', 'dir')) },
            { name: "another prefix's keys out of reach (GET)", ok: await denied(user.get('someone-else:{chaos:0}:due')) },
            { name: 'a prefix that extends ours is out of reach too', ok: await denied(user.get(`${prefix}:x:{chaos:0}:due`)) },
            { name: 'an engine with another prefix is refused', ok: otherPrefixDenied },
          ];
        });
      } finally {
        user.disconnect();
      }
    } finally {
      await aclServer.stop();
    }

    const certificates = makeCertificates();
    let tlsPart: ScenarioResult;
    const tlsChecks: Check[] = [];
    try {
      const tlsServer = await RedisServer.start({ tls: { certFile: certificates.certFile, keyFile: certificates.keyFile, caFile: certificates.caFile } });
      try {
        tlsPart = await miniBaseline(
          'acl-tls',
          context,
          {
            redis: tlsServer,
            // Workers use the plain rediss:// URL, trusting the CA through NODE_EXTRA_CA_CERTS; the harness passes the CA in its options.
            workerConnection: `rediss://127.0.0.1:${tlsServer.port}`,
            harnessConnection: { host: '127.0.0.1', port: tlsServer.port, tls: { ca: readFileSync(certificates.caFile) } },
            pool: { env: { NODE_EXTRA_CA_CERTS: certificates.caFile } },
          },
          count,
          async () => [],
        );
        const wrong = new DurableTimeouts({
          connection: { host: '127.0.0.1', port: tlsServer.port, tls: { ca: readFileSync(certificates.wrongCaFile) } },
          prefix: 'chaos-wrong-ca',
          topics: { chaos: {} },
          logger: null,
        });
        const started = Date.now();
        const wrongError = await wrong.schedule('chaos', 'x', { delayMs: 1_000 }).then(() => undefined, (error: unknown) => error);
        const wrongMs = Date.now() - started;
        await wrong.stop({ drainMs: 0 });
        tlsChecks.push({ name: 'a client trusting the wrong CA is refused', ok: wrongError !== undefined, detail: `${wrongMs} ms` });
        const plain = new DurableTimeouts({ connection: `redis://127.0.0.1:${tlsServer.port}`, prefix: 'chaos-plain', topics: { chaos: {} }, logger: null });
        const plainRefused = await plain.schedule('chaos', 'x', { delayMs: 1_000 }).then(() => false, () => true);
        await plain.stop({ drainMs: 0 });
        tlsChecks.push({ name: 'a plain-text client is refused by the TLS port', ok: plainRefused });
        notes.push(`TLS: baseline over rediss:// with a private CA; wrong CA refused after ${wrongMs} ms`);
      } finally {
        await tlsServer.stop();
      }
    } finally {
      certificates.remove();
    }
    return merge('acl-tls', [aclPart, tlsPart], tlsChecks, notes);
  },
};

/** Every key the store may write under `prefix`: the slot keys of topic `chaos`, and the registry of topic slot counts. */
const KEY_LAYOUT = (prefix: string) => {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}:(\\{chaos:\\d+\\}:(due|lease|dead|seq|layout|fwd|d:\\d+)|topics)$`);
};

/**
 * 12. Hostile input: prototype-pollution payloads, oversized and deeply nested payloads, ids that
 * try to break the key layout. Each is rejected at `schedule` or stored inertly (and fires like any
 * other); Object.prototype stays as it was; a secret in the payloads never reaches a log line.
 */
export const hostileInput: Scenario = {
  name: 'hostile-input',
  run: (context) =>
    withRig('hostile-input', context, {}, async (rig) => {
      const secret = `chaos-secret-${randomBytes(8).toString('hex')}`;
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
      await rig.pool.start(2);
      let nested: unknown = { secret };
      for (let depth = 0; depth < 5_000; depth += 1) nested = [nested];
      const payloads: Record<string, ScheduleItem['payload']> = {
        'proto-json': JSON.parse(`{"__proto__": {"polluted": "${secret}"}, "secret": "${secret}"}`),
        'constructor-prototype': { constructor: { prototype: { polluted: secret } }, secret },
        'nested-proto': JSON.parse(`{"a": {"__proto__": {"isAdmin": true}}, "b": [{"__proto__": {"x": "${secret}"}}]}`),
        'deeply-nested': nested as ScheduleItem['payload'],
        'fails-once-with-secret': { chaos: 'fail-once', secret },
        'unicode-and-controls': { text: `\u0000\u202e${secret}\r\n😀` },
      };
      const hostileIds = ['{', '}', '}{', 'a:b:c', '{chaos:0}', 'x}:due', `${rig.prefix}:{chaos:0}:due`, '../../etc/passwd', 'nul\u0000id', '\r\nFLUSHALL\r\n', ' ', 'ü€😀', '__proto__', 'constructor', 'hasOwnProperty', '*', '?[a]'];
      const items: ScheduleItem[] = [
        ...Object.entries(payloads).map(([id, payload]) => ({ id, delayMs: 200, payload })),
        ...hostileIds.map((id) => ({ id, delayMs: 200, payload: { secret } })),
      ];
      await rig.schedule(items);
      const oversizedId = 'oversized';
      const oversized = await rig.engine
        .schedule(rig.topic, oversizedId, { delayMs: 200, payload: { blob: `${secret}${'x'.repeat(rig.topicOptions.maxPayloadBytes ?? 65_536)}` } })
        .then(() => undefined, (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)));
      const emptyId = await rig.engine.schedule(rig.topic, '', { delayMs: 200 }).then(() => undefined, (error: unknown) => String(error));
      // Values JSON cannot carry, and an id far too long for a key-less layout to need.
      const circular: Record<string, unknown> = { secret };
      circular.self = circular;
      const unserialisable: Array<[string, unknown]> = [
        ['circular', circular],
        ['bigint', { secret, big: 10n }],
        ['function', { secret, run: () => secret }],
      ];
      const refusedUnserialisable: string[] = [];
      for (const [id, payload] of unserialisable) {
        await rig.engine.schedule(rig.topic, id, { delayMs: 200, payload: payload as never }).then(
          () => rig.expected.set(id, 0),
          (error: unknown) => refusedUnserialisable.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
        );
      }
      const longId = await rig.engine.schedule(rig.topic, 'x'.repeat(100_000), { delayMs: 200 }).then(() => undefined, (error: unknown) => String(error));
      // Stored inertly: a far-off copy of each accepted hostile schedule reads back exactly as given.
      const roundTrips: string[] = [];
      for (const item of items.filter((candidate) => rig.expected.has(candidate.id))) {
        const copyId = `${item.id}#copy`;
        await rig.engine.schedule(rig.topic, copyId, item.payload === undefined ? { delayMs: 600_000 } : { delayMs: 600_000, payload: item.payload });
        const read = await rig.engine.get(rig.topic, copyId);
        if (!read || read.id !== copyId || JSON.stringify(read.payload) !== JSON.stringify(item.payload ?? null)) roundTrips.push(JSON.stringify(item.id));
        await rig.engine.cancel(rig.topic, copyId);
      }
      const settled = await rig.settle(SWEEP_MS + 15_000);

      const admin = rig.redis.client();
      const layout = KEY_LAYOUT(rig.prefix);
      const strayKeys: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'COUNT', 1000);
        strayKeys.push(...keys.filter((key) => !layout.test(key)));
        cursor = next;
      } while (cursor !== '0');
      const counters = await rig.pool.counters();
      const everyLine = [...rig.pool.logLines, ...rig.logLines, ...rig.rejected.values(), ...refusedUnserialisable, oversized ?? '', emptyId ?? '', longId ?? ''];
      const leaking = everyLine.filter((line) => line.includes(secret));
      const prototypeAfter = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
      const checks: Check[] = [
        { name: 'settled', ok: settled },
        { name: 'oversized payload rejected at schedule()', ok: oversized !== undefined },
        { name: 'empty id rejected at schedule()', ok: emptyId !== undefined },
        { name: 'a 100,000-character id rejected at schedule()', ok: longId !== undefined },
        { name: 'circular, BigInt and function payloads rejected at schedule()', ok: refusedUnserialisable.length === unserialisable.length, detail: `${refusedUnserialisable.length}/${unserialisable.length}` },
        { name: 'accepted hostile ids and payloads read back exactly (get)', ok: roundTrips.length === 0, detail: roundTrips.join(', ') },
        { name: 'every key of the prefix keeps the layout (ids never reach key names)', ok: strayKeys.length === 0, detail: strayKeys.slice(0, 3).join(' | ') },
        { name: 'Object.prototype unchanged in the harness', ok: prototypeAfter === prototypeBefore && ({} as Record<string, unknown>).polluted === undefined },
        { name: 'Object.prototype unchanged in the workers', ok: !counters.prototypePolluted },
        { name: 'the secret in the payloads appears in no log line or error text', ok: leaking.length === 0, detail: `${leaking.length} lines` },
      ];
      return rig.result({ maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 1_000 }, checks, [
        `${items.length + unserialisable.length + 3} hostile schedules: ${rig.expected.size} stored and fired inertly, ${rig.rejected.size + refusedUnserialisable.length + 3} rejected; ${everyLine.length} log/error lines scanned for the secret`,
        `rejected: ${[...rig.rejected].map(([id, error]) => `${JSON.stringify(id).slice(0, 24)} (${error.split(':')[0]})`).join(', ')}, "oversized" (${oversized?.split(':')[0]}), "" (${emptyId?.split(':')[0]}), 100,000-char id (${longId?.split(':')[0]}), circular/BigInt/function (${refusedUnserialisable.map((text) => text.split(':')[0]).join('/')})`,
      ]);
    }),
};
