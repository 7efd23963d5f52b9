// The relay admin server's bounds over real HTTP on loopback: sign-in sessions are capped (the oldest ends) and
// expired ones leave memory (injected clock); slow-header clients and connection floods meet the server's limits;
// an over-size POST body is answered 413 naming the limit; GET /api/agents answers summaries, never the cards.
// Node's header and request timeouts run on its own timers, which no injected clock reaches: those tests configure
// small values (hundreds of milliseconds) and wait on real time for them.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { MAX_SESSIONS } from '../../relay/admin/auth.js';
import { ADMIN_HTTP_DEFAULTS } from '../../relay/admin/limits.js';
import { startAdmin } from '../../relay/admin/server.js';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { total } from '../support/gc.js';

const PASSWORD = 'correct horse battery';
const base = {
  workspace_id: 'ws1',
  api_key: 'relay-key-Ls9dQ2vB',
  gateway_url: 'ws://127.0.0.1:9',
  agents: [{ name: 'echo', local_url: 'http://127.0.0.1:9' }],
  admin_port: 0,
};
const withPassword = parseRelayConfig({ text: JSON.stringify({ ...base, admin_password: PASSWORD }) });
const basic = { authorization: `Basic ${Buffer.from(`ops:${PASSWORD}`).toString('base64')}` };

async function signIn(url: string): Promise<string> {
  const r = await fetch(`${url}/login`, {
    method: 'POST',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  return (r.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const statusWith = async (url: string, cookie: string) => (await fetch(`${url}/api/status`, { headers: { cookie } })).status;
const sessionsGauge = async (url: string) => total(await (await fetch(`${url}/metrics`, { headers: basic })).text(), 'a2a_relay_admin_sessions');

/** A raw connection to the admin server, what it received, and when it closed (or `deadlineMs` passed: 'open'). */
function rawClient(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    connected: new Promise<void>((r) => socket.once('connect', () => r())),
    received: () => received,
    closedWithin: (deadlineMs: number) =>
      Promise.race([closed.then(() => 'closed' as const), new Promise<'open'>((r) => setTimeout(() => r('open'), deadlineMs))]),
  };
}

t.test('sessions are capped: one sign-in past the cap ends the oldest, and its live stream', async (t) => {
  const admin = await startAdmin({ config: withPassword, log: () => {}, clock: new ManualClock(Date.now()) });
  t.teardown(() => admin.close());
  const first = await signIn(admin.url);
  const ctl = new AbortController();
  t.teardown(() => ctl.abort());
  const stream = await fetch(`${admin.url}/api/events`, { headers: { cookie: first }, signal: ctl.signal });
  t.equal(stream.status, 200, 'the first session holds a live stream');
  const second = await signIn(admin.url);
  for (let i = 2; i < MAX_SESSIONS; i++) await signIn(admin.url);
  t.equal(await sessionsGauge(admin.url), MAX_SESSIONS, `${MAX_SESSIONS} sessions kept`);
  t.equal(await statusWith(admin.url, first), 200, 'at the cap the oldest still works');

  const newest = await signIn(admin.url);
  t.equal(await sessionsGauge(admin.url), MAX_SESSIONS, 'one more sign-in keeps the count at the cap');
  t.equal(await statusWith(admin.url, first), 401, 'the oldest session was ended');
  t.equal(await statusWith(admin.url, second), 200, 'the next one still works');
  t.equal(await statusWith(admin.url, newest), 200, 'the new one works');
  const reader = stream.body!.getReader();
  for (;;) if ((await reader.read()).done) break;
  t.pass("the ended session's live stream closed");
});

t.test('expired sessions leave memory without another sign-in', async (t) => {
  const clock = new ManualClock(Date.now());
  const admin = await startAdmin({ config: withPassword, log: () => {}, clock });
  t.teardown(() => admin.close());
  const cookies = [await signIn(admin.url), await signIn(admin.url), await signIn(admin.url)];
  t.equal(await sessionsGauge(admin.url), 3);
  clock.advance(12 * 60 * 60 * 1000 - 1);
  t.equal(await statusWith(admin.url, cookies[0]!), 200, 'live until its 12 hours are up');
  clock.advance(1);
  t.equal(await sessionsGauge(admin.url), 0, 'past 12 hours none is kept');
  t.equal(await statusWith(admin.url, cookies[2]!), 401, 'and none is let in');
});

t.test('a client that sends its headers too slowly is answered 408 and closed', async (t) => {
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify(base) }),
    log: () => {},
    http: { headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 100 },
  });
  t.teardown(() => admin.close());
  const c = rawClient(admin.url);
  await c.connected;
  c.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  // Node's default would hold it for 60 s; 5 s is far past the 300 ms configured and its 100 ms check
  t.equal(await c.closedWithin(5_000), 'closed', 'the connection was closed');
  t.match(c.received(), /^HTTP\/1\.1 408/, 'with 408');
  t.equal(ADMIN_HTTP_DEFAULTS.headersTimeoutMs, 10_000, 'the documented default');
});

t.test('connections past maxConnections are closed unanswered; the others go on', async (t) => {
  const admin = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify(base) }), log: () => {}, http: { maxConnections: 2 } });
  t.teardown(() => admin.close());
  const a = rawClient(admin.url);
  const b = rawClient(admin.url);
  await Promise.all([a.connected, b.connected]);
  // the server has taken both (a request answered on each) before the third arrives
  for (const c of [a, b]) c.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  for (const c of [a, b]) while (!c.received().includes('"ok":true')) await new Promise((r) => setTimeout(r, 10));
  const third = rawClient(admin.url);
  t.equal(await third.closedWithin(5_000), 'closed', 'the third connection is closed');
  t.equal(third.received(), '', 'unanswered');
  a.socket.destroy();
  await a.closedWithin(5_000);
  const fourth = rawClient(admin.url);
  await fourth.connected;
  fourth.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  t.equal(await fourth.closedWithin(5_000), 'closed');
  t.match(fourth.received(), /^HTTP\/1\.1 200/, 'a freed place is taken again');
  b.socket.destroy();
});

t.test('an over-size POST body is answered 413 naming the limit, before the password is tried', async (t) => {
  const admin = await startAdmin({ config: withPassword, log: () => {} });
  t.teardown(() => admin.close());
  const limit = ADMIN_HTTP_DEFAULTS.maxBodyBytes;
  const big = `password=${'x'.repeat(limit)}`;
  for (let i = 0; i < 12; i++) {
    const r = await fetch(`${admin.url}/login`, {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    t.equal(r.status, 413, 'the login form over the limit');
    const e = ((await r.json()) as { error: { code: string; message: string } }).error;
    t.equal(e.code, 'body_too_large');
    t.match(e.message, new RegExp(`over ${limit} bytes`), 'naming the limit');
  }
  t.equal(await statusWith(admin.url, await signIn(admin.url)), 200, 'twelve of them spent none of the 10 failed tries a minute');

  const replay = await fetch(`${admin.url}/api/tasks/t1/replay`, {
    method: 'POST',
    body: JSON.stringify({ pad: 'x'.repeat(limit) }),
    headers: { 'content-type': 'application/json', ...basic },
  });
  t.equal(replay.status, 413, "a replay's JSON over the limit");

  // chunked, no Content-Length: refused once the bytes pass the limit
  const c = rawClient(admin.url);
  await c.connected;
  const chunk = 'y'.repeat(1000);
  c.socket.write(`POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`);
  for (let i = 0; i < 6; i++) c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  c.socket.write('0\r\n\r\n');
  t.equal(await c.closedWithin(5_000), 'closed', 'the connection closes after the answer');
  t.match(c.received(), /^HTTP\/1\.1 413/);
  t.match(c.received(), /body_too_large/);
});

t.test('a POST body on a route that never reads one is bounded too: refused past the limit, the connection closed', async (t) => {
  const admin = await startAdmin({ config: withPassword, log: () => {} });
  t.teardown(() => admin.close());
  const limit = ADMIN_HTTP_DEFAULTS.maxBodyBytes;
  // sign-out, an unknown path, an API path refused before its handler: none of them reads a body
  for (const path of ['/logout', '/nowhere', '/api/status']) {
    const r = await fetch(`${admin.url}${path}`, { method: 'POST', body: 'x'.repeat(limit + 1), headers: { origin: admin.url }, redirect: 'manual' });
    t.equal(r.status, 413, `${path}: a body over the limit is refused`);
    t.match(await r.text(), /"code":"body_too_large"/);
  }
  const small = await fetch(`${admin.url}/logout`, { method: 'POST', body: 'x'.repeat(limit), headers: { origin: admin.url }, redirect: 'manual' });
  t.equal(small.status, 303, 'a body within the limit is read and the route answers as before');

  // a client streaming a chunked body to a route that reads none: the server stops taking it soon after the limit,
  // answers and closes, rather than draining it for the request timeout (30 s) per connection
  const c = rawClient(admin.url);
  await c.connected;
  c.socket.write('POST /logout HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
  const chunk = 'z'.repeat(64 * 1024);
  const total = 64 * 1024 * 1024;
  let sent = 0;
  let failed = false;
  while (sent < total && !failed && !c.socket.destroyed) {
    failed = await new Promise<boolean>((r) => c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, (e) => r(e != null)));
    sent += chunk.length;
  }
  t.ok(sent < total, `the server closed the connection before taking the ${total / 1024 / 1024} MiB body (it took ${sent} bytes)`);
  t.equal(await c.closedWithin(5_000), 'closed');
  c.socket.destroy();
});

t.test('GET /api/agents answers summaries, bounded whatever the cards; one card whole at /api/agents/NAME', async (t) => {
  const skills = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description: `${'d'.repeat(1000)} ${i}` }));
  const agents = Array.from({ length: 10 }, (_, i) => ({ name: `agent-${i}`, description: `agent ${i}`, local_url: 'http://127.0.0.1:9', skills }));
  const config = parseRelayConfig({ text: JSON.stringify({ ...base, agents }) });
  const clock = new ManualClock(Date.now());
  const admin = await startAdmin({ config, log: () => {}, clock });
  const relay = await startRelay({ config, log: () => {}, clock, timers: clock, random: () => 0.5, observer: admin.observer });
  admin.attach(relay);
  t.teardown(async () => {
    await relay.stop();
    await admin.close();
  });
  const r = await fetch(`${admin.url}/api/agents`);
  const text = await r.text();
  t.ok(text.length < 20_000, `about 1 MB of cards make a small answer (${text.length} characters)`);
  const listed = (JSON.parse(text) as { agents: Array<Record<string, unknown>> }).agents;
  t.equal(listed.length, 10, 'every agent');
  t.notOk('card' in listed[0]!, 'no card');
  t.match(listed[3], { name: 'agent-3', description: 'agent 3', skillCount: 100, cardRev: 1 });
  const one = (await (await fetch(`${admin.url}/api/agents/agent-3`)).json()) as { card: { skills: unknown[] } };
  t.equal(one.card.skills.length, 100, "the agent's card whole on its own");
});
