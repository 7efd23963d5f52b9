// The relay admin UI's live streams (/api/events) over real HTTP on loopback: how many may be open (per session, and
// in all) is bounded with a clear refusal; a reader that stops reading is cut off instead of having every later change
// queued in the relay's memory; a health round sends each open page only what changed, never every agent's card again.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startAdmin } from '../../relay/admin/server.js';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { startSdkRemote } from '../support/sdk-remote.js';
import { startStandInGateway } from '../support/tunnel-gateway.js';

const PASSWORD = 'correct horse battery';
const KEY = 'relay-key-Ls9dQ2vB';
const base = {
  workspace_id: 'ws1',
  api_key: KEY,
  gateway_url: 'ws://127.0.0.1:9',
  agents: [{ name: 'echo', local_url: 'http://127.0.0.1:9' }],
  admin_port: 0,
};

async function signIn(url: string): Promise<string> {
  const r = await fetch(`${url}/login`, {
    method: 'POST',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  return (r.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** Opens /api/events with `cookie`: the status, the error body when refused, and a cancel when open. */
async function openStream(url: string, cookie: string) {
  const ctl = new AbortController();
  const res = await fetch(`${url}/api/events`, { headers: { cookie }, signal: ctl.signal });
  const error = res.status === 200 ? undefined : ((await res.json()) as { error: { code: string; message: string } }).error;
  return { status: res.status, retryAfter: res.headers.get('retry-after'), error, cancel: () => ctl.abort() };
}

t.test('live streams are bounded per session and in all, with a clear refusal; a closed one frees its place', async (t) => {
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify({ ...base, admin_password: PASSWORD }) }),
    log: () => {},
    streams: { maxStreamsPerHolder: 2, maxStreams: 3 },
  });
  t.teardown(() => admin.close());
  const a = await signIn(admin.url);
  const b = await signIn(admin.url);
  const c = await signIn(admin.url);
  const a1 = await openStream(admin.url, a);
  const a2 = await openStream(admin.url, a);
  t.same([a1.status, a2.status], [200, 200], 'a session opens streams up to its bound');
  const a3 = await openStream(admin.url, a);
  t.equal(a3.status, 429, 'one more from the same session is refused');
  t.equal(a3.error?.code, 'too_many_streams');
  t.match(a3.error?.message, /already holds 2 live streams/, 'saying which bound and how many');
  const b1 = await openStream(admin.url, b);
  t.equal(b1.status, 200, 'another session still gets one');
  const c1 = await openStream(admin.url, c);
  t.equal(c1.status, 503, 'past the bound for all sessions, a refusal for everyone');
  t.equal(c1.error?.code, 'streams_full');
  t.match(c1.error?.message, /already serves 3 live streams/);
  t.equal(c1.retryAfter, '10', 'with a Retry-After');
  t.equal((await fetch(`${admin.url}/api/status`, { headers: { cookie: c } })).status, 200, 'the JSON API is not affected');

  a1.cancel();
  await until(async () => (await openStream(admin.url, c)).status === 200, 'a closed stream frees its place');
  t.pass('the freed place is taken');
  for (const s of [a2, b1]) s.cancel();
});

t.test('by default one session cannot open more than 16 streams (a tab storm, or a script)', async (t) => {
  const admin = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify({ ...base, admin_password: PASSWORD }) }), log: () => {} });
  t.teardown(() => admin.close());
  const a = await signIn(admin.url);
  const open = [];
  for (let i = 0; i < 16; i++) open.push(await openStream(admin.url, a));
  t.ok(
    open.every((s) => s.status === 200),
    '16 open',
  );
  const next = await openStream(admin.url, a);
  t.equal(next.status, 429);
  t.equal(next.error?.code, 'too_many_streams');
  for (const s of open) s.cancel();
});

t.test('without a password (no session) the client address holds the streams', async (t) => {
  const admin = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify(base) }), log: () => {}, streams: { maxStreamsPerHolder: 2 } });
  t.teardown(() => admin.close());
  const open = [await openStream(admin.url, ''), await openStream(admin.url, '')];
  t.same(
    open.map((s) => s.status),
    [200, 200],
  );
  const next = await openStream(admin.url, '');
  t.equal(next.status, 429, 'a third from the same address is refused');
  t.equal(next.error?.code, 'too_many_streams');
  for (const s of open) s.cancel();
});

/**
 * A raw HTTP client of /api/events that reads its stream's first snapshot, then nothing (its socket paused: what the
 * server sends waits in the kernel's buffers, then in the server) until `readAll`, which reads to the server's end (or
 * to `last`, when the server kept every change for it).
 */
async function stalledReader(url: string): Promise<{ socket: Socket; readAll: (last: string) => Promise<string> }> {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.write(`GET /api/events HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    const first = (c: Buffer) => {
      chunks.push(c);
      if (!Buffer.concat(chunks).includes('event: agents')) return;
      socket.off('data', first);
      socket.pause();
      resolve();
    };
    socket.on('data', first);
  });
  return {
    socket,
    readAll: (last) =>
      new Promise((resolve) => {
        const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          if (c.includes(last)) done();
        });
        socket.once('end', done);
        socket.once('error', done);
        socket.resume();
      }),
  };
}

t.test('a reader that stops reading is cut off once it falls too far behind; the others are served', async (t) => {
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify(base) }),
    log: () => {},
    streams: { maxBufferedBytes: 64 * 1024 },
  });
  t.teardown(() => admin.close());
  const slow = await stalledReader(admin.url);
  t.teardown(() => slow.socket.destroy());
  // 40 MB of changes (tunnel errors of 100 KB): far more than the kernel's buffers on loopback hold
  const big = 'x'.repeat(100 * 1024);
  const view = { state: 'waiting', upSince: undefined, restarts: 0, failures: 1, delayMs: 1000, nextRetryAt: undefined, retryAfterMs: undefined };
  for (let i = 0; i < 400; i++) admin.observer.tunnel?.({ ...view, failures: i + 1, lastError: `${big} ${i}` });
  admin.observer.tunnel?.({ ...view, lastError: 'the-last-change' });
  const read = await slow.readAll('the-last-change');
  t.notOk(read.includes('the-last-change'), 'the slow reader did not get every later change: it was cut off');
  t.ok(read.length < 30 * 1024 * 1024, `nor was everything kept for it (${read.length} bytes came through)`);
  t.match(read, /^HTTP\/1\.1 200/, 'it had its stream');

  // a reader that keeps up gets the changes after it
  const ctl = new AbortController();
  const res = await fetch(`${admin.url}/api/events`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  admin.observer.tunnel?.({ ...view, lastError: 'after-the-cut' });
  let text = '';
  while (!text.includes('after-the-cut')) text += new TextDecoder().decode((await reader.read()).value);
  t.pass('a new stream is served');
  ctl.abort();
});

t.test("a health round sends each open page what changed, not every agent's card again", async (t) => {
  const sdk = await startSdkRemote();
  const gw = await startStandInGateway({ key: KEY });
  const clock = new ManualClock(Date.now());
  // 10 agents, each with a card of 20 skills of 2,000 characters (40 KB): 400 KB of cards
  const skills = Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description: 'd'.repeat(2000) }));
  const agents = Array.from({ length: 10 }, (_, i) => ({ name: `agent-${i}`, local_url: sdk.url, skills }));
  const config = parseRelayConfig({ text: JSON.stringify({ ...base, gateway_url: gw.url, health_check_interval: 10, agents }) });
  // a bound far below the agents' cards (the stream sends their summaries: admin-agents-summary.test.ts)
  const admin = await startAdmin({ config, log: () => {}, clock, streams: { maxBufferedBytes: 16 * 1024 } });
  const relay = await startRelay({ config, log: () => {}, clock, timers: clock, random: () => 0.5, observer: admin.observer });
  admin.attach(relay);
  t.teardown(async () => {
    await relay.stop();
    await admin.close();
    await gw.close();
    await sdk.close();
  });
  await gw.connected();
  await until(() => relay.health.rounds() >= 1, 'the first round');

  const ctl = new AbortController();
  const res = await fetch(`${admin.url}/api/events`, { signal: ctl.signal });
  t.teardown(() => ctl.abort());
  const reader = res.body!.getReader();
  let text = '';
  /** reads until `marker` has come (a status change made after what is measured: the stream keeps its order) */
  const readTo = async (marker: string) => {
    admin.observer.tunnel?.({ ...relay.tunnel(), lastError: marker });
    while (!text.includes(marker)) text += new TextDecoder().decode((await reader.read()).value);
  };
  await readTo('marker-1');
  const before = text.length;

  clock.advance(10_000);
  await until(() => relay.health.rounds() >= 2, 'the next round');
  await readTo('marker-2');
  const round = text.slice(before);
  t.ok(round.length < 10_000, `one round of 10 unchanged agents sent ${round.length} bytes`);
  t.notOk(round.includes('"skills"'), 'no card in it');

  // what the stream told, applied as the page applies it, is what the API shows
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ type: m[1], data: JSON.parse(m[2]!) }));
  let shown = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    if (e.type === 'agents') shown = new Map(e.data.map((a: { name: string }) => [a.name, a]));
    if (e.type === 'agent') {
      const a = { ...shown.get(e.data.name) };
      for (const [k, v] of Object.entries(e.data))
        if (v === null) delete a[k];
        else a[k] = v;
      shown.set(e.data.name, a);
    }
  }
  // GET /api/agents answers the same summaries (descriptions included) the stream tells
  const api = (await (await fetch(`${admin.url}/api/agents`)).json()) as { agents: Array<{ lastCheck: number }> };
  t.same([...shown.values()], api.agents, 'the page shows every agent as the API does, last check included');
  t.equal(api.agents[0]?.lastCheck, clock.now(), 'checked in the new round');
});

t.test("another site's page cannot open live streams from the operator's browser (nor read the API)", async (t) => {
  const admin = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify(base) }), log: () => {}, streams: { maxStreamsPerHolder: 2 } });
  t.teardown(() => admin.close());
  const tries: Array<Record<string, string>> = [
    { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    { 'sec-fetch-site': 'same-site' },
    { origin: 'http://evil.example' },
  ];
  for (const headers of tries) {
    for (const path of ['/api/events', '/api/status', '/api/tasks']) {
      const r = await fetch(`${admin.url}${path}`, { headers });
      t.equal(r.status, 403, `${path} from ${JSON.stringify(headers)}: refused`);
      // a stream that opened is closed here, not read to its (never) end
      const body = r.status === 403 ? ((await r.json()) as { error: { code: string } }) : await r.body?.cancel();
      t.equal(body?.error.code, 'cross_site');
    }
  }
  // the operator's own page and scripts hold their streams as before: the refused ones took no place
  const own = [await openStream(admin.url, ''), await openStream(admin.url, '')];
  t.same(
    own.map((s) => s.status),
    [200, 200],
  );
  const page = await fetch(`${admin.url}/api/status`, { headers: { 'sec-fetch-site': 'same-origin' } });
  t.equal(page.status, 200, "the UI's own fetch is answered");
  for (const s of own) s.cancel();
});
