// The JSON admin API over plain HTTP: an admin key as Bearer, the workspace boundary, the session's lifetime (expiry on
// an injected clock, revocation of the key that signed in), CSRF and content-type rules, errors that name the field.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { revokeKey } from '../../src/runtime/key-admin.js';
import { adminCall, adminSignIn, type AdminCallOptions } from '../support/admin-api.js';
import { openLiveView } from '../support/admin-live-view.js';
import { queueOf } from '../../src/runtime/store/push-queues.js';
import { taskKey } from '../../src/runtime/store/types.js';
import { WAITING_SHOWN } from '../../src/gateway/admin/routes-settings.js';
import type { PushJob } from '../../src/protocol/records.js';
import { startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

async function setup(t: Test) {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, config: { dashboard: { enabled: true, sessionTtlMs: 60_000 } } });
  t.teardown(() => tg.close());
  const call = (method: string, path: string, o?: AdminCallOptions) => adminCall(tg, method, path, o);
  const signIn = (key: string, headers?: Record<string, string>) => adminSignIn(tg, key, headers);
  return { clock, tg, call, signIn };
}

t.test('an admin key as Bearer manages its own workspace only; other trust levels are refused', async (t) => {
  const { tg, call } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const other = await tg.key({ workspace: 'globex', trust: 'admin' });
  const exec = await tg.key({ workspace: 'acme', trust: 'execute' });

  const made = await call('POST', '/keys', { bearer: admin.key, body: { name: 'bot', trust: 'execute' } });
  t.equal(made.status, 200, 'no CSRF token needed with a Bearer key');
  t.match(made.json, { workspace: 'acme', trust: 'execute', name: 'bot', key: /^svc_a2a_/ });
  const list = await call('GET', '/keys', { bearer: admin.key });
  t.same(list.json.keys.map((k: any) => k.workspace).sort(), ['acme', 'acme', 'acme'], 'only its workspace');
  t.notOk(JSON.stringify(list.json).includes(made.json.key), 'the list never shows a key');
  t.ok(list.json.keys.find((k: any) => k.id === admin.id).last_used_at, 'the admin key was just used');

  t.equal((await call('POST', `/keys/${other.id}/revoke`, { bearer: admin.key })).status, 404, "another workspace's key is not found");
  t.equal((await tg.gw.store.keys.get(other.id))?.revokedAt, null, 'and not revoked');
  t.equal((await call('GET', '/keys', { bearer: exec.key })).status, 403, 'an execute key is refused');
  t.equal((await call('GET', '/keys', { bearer: 'svc_a2a_unknown' })).status, 401);
  t.equal((await call('GET', '/keys')).status, 401, 'nothing presented');

  const bad = await call('POST', '/keys', { bearer: admin.key, body: { trust: 'root' } });
  t.equal(bad.status, 400);
  t.match(bad.json.message, /^trust:/, 'the error names the field');
  const badConn = await call('POST', '/connections', { bearer: admin.key, body: { name: 'x', url: 'not a url' } });
  t.equal(badConn.status, 400);
  t.equal(badConn.json.field, 'url');
  t.equal((await call('GET', '/nope', { bearer: admin.key })).status, 404);
  t.equal((await call('DELETE', '/keys', { bearer: admin.key })).status, 405);
});

t.test('sessions: cookie rules, CSRF on mutations, JSON bodies only, expiry, and revocation ends them', async (t) => {
  const { clock, tg, call, signIn } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const reader = await tg.key({ workspace: 'acme', trust: 'read_only' });

  t.equal((await signIn(reader.key)).status, 403, 'a read_only key cannot sign in');
  t.equal((await signIn('svc_a2a_wrong')).status, 401);
  const s = await signIn(admin.key);
  t.equal(s.status, 200);
  const setCookie = s.headers.get('set-cookie') ?? '';
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Strict/);
  t.match(setCookie, /Max-Age=60/);
  t.notMatch(setCookie, /Secure/, 'not Secure over plain HTTP');
  // Secure behind a trusted proxy or over TLS: test/gateway/forwarded-proto.test.ts
  t.notMatch((await signIn(admin.key, { 'X-Forwarded-Proto': 'https' })).headers.get('set-cookie'), /Secure/, 'an untrusted X-Forwarded-Proto is not believed');

  t.equal((await call('GET', '/session', { cookie: s.cookie })).json.csrf, s.csrf, 'the page can fetch its token again');
  t.equal((await call('GET', '/keys', { cookie: s.cookie })).status, 200, 'reads need no token');
  t.equal((await call('POST', '/keys', { cookie: s.cookie, body: { trust: 'execute' } })).status, 403, 'a mutation without the token');
  t.equal((await call('POST', '/keys', { cookie: s.cookie, csrf: 'x'.repeat(43), body: { trust: 'execute' } })).status, 403, 'a wrong token');
  const form = await call('POST', '/keys', { cookie: s.cookie, csrf: s.csrf, raw: 'trust=execute', type: 'application/x-www-form-urlencoded' });
  t.equal(form.status, 415, 'a form post is refused');
  t.equal((await call('POST', '/keys', { cookie: s.cookie, csrf: s.csrf, body: { trust: 'execute' } })).status, 200, 'with the token');

  clock.advance(61_000);
  t.equal((await call('GET', '/keys', { cookie: s.cookie })).status, 401, 'expired');

  const s2 = await signIn(admin.key);
  t.equal((await call('GET', '/keys', { cookie: s2.cookie })).status, 200);
  const other = await tg.key({ workspace: 'acme', trust: 'admin' });
  t.equal((await call('POST', `/keys/${admin.id}/revoke`, { bearer: other.key })).status, 200);
  t.equal((await call('GET', '/keys', { cookie: s2.cookie })).status, 401, 'revoking the key that signed in ends its session');

  const s3 = await signIn(other.key);
  t.equal((await call('DELETE', '/session', { cookie: s3.cookie })).status, 403, 'sign-out needs the token too');
  t.equal((await call('DELETE', '/session', { cookie: s3.cookie, csrf: s3.csrf })).status, 200);
  t.equal((await call('GET', '/keys', { cookie: s3.cookie })).status, 401, 'signed out');
});

t.test('tasks through the API: list with filters, the sanitized view, cancel; webhooks rotate', async (t) => {
  const { tg, call } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const sent = await tg.rpc({
    method: 'message/send',
    key: admin.key,
    headers: { 'X-Request-Id': 'req-abc-1' },
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }], metadata: { agentId: 'echo' } } },
  });
  const id = sent.json.result.id;
  const slow = await tg.rpc({
    method: 'message/send',
    key: admin.key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm2', parts: [{ kind: 'data', data: { ms: 60_000, steps: 1 } }], metadata: { agentId: 'slow' } },
      configuration: { blocking: false },
    },
  });
  const slowId = slow.json.result.id;
  const all = await call('GET', '/tasks', { bearer: admin.key });
  t.same(all.json.tasks.map((x: any) => x.id).sort(), [id, slowId].sort());
  const done = await call('GET', '/tasks?state=completed&agent=echo', { bearer: admin.key });
  t.same(
    done.json.tasks.map((x: any) => x.id),
    [id],
  );
  t.equal((await call('GET', '/tasks?state=bogus', { bearer: admin.key })).status, 400);
  const detail = await call('GET', `/tasks/${id}`, { bearer: admin.key });
  t.match(detail.json, { id, agent: 'echo', state: 'completed', view: { kind: 'task', id, status: { state: 'completed' } } });
  t.notOk(JSON.stringify(detail.json.view).includes('workspace_id'), 'the view is sanitized');
  t.equal(detail.json.request_id, 'req-abc-1', 'the task keeps the request id of the call that created it');
  t.notOk(JSON.stringify(sent.json).includes('req-abc-1'), 'never in what the caller gets back');
  const other = await tg.key({ workspace: 'globex', trust: 'admin' });
  t.equal((await call('GET', `/tasks/${id}`, { bearer: other.key })).status, 404, "another workspace's task is not found");
  const canceled = await call('POST', `/tasks/${slowId}/cancel`, { bearer: admin.key });
  t.equal(canceled.json.state, 'canceled');
  t.equal((await call('POST', `/tasks/${id}/cancel`, { bearer: admin.key })).status, 400, 'a terminal task is not canceled');

  const rotated = await call('POST', '/webhooks/secret/rotate', { bearer: admin.key });
  t.match(rotated.json.secret, /^whsec_/);
  t.equal(await tg.gw.push.secrets.current('acme'), rotated.json.secret);
  t.match((await call('GET', '/webhooks', { bearer: admin.key })).json, { has_secret: true, deliveries: [], waiting: [] });
});

t.test("webhooks: the waiting list shows the workspace's own soonest due jobs only, at most 100, with the count of all", async (t) => {
  const { tg, call } = await setup(t);
  const acme = await tg.key({ workspace: 'acme', trust: 'admin' });
  const globex = await tg.key({ workspace: 'globex', trust: 'admin' });
  const job = (workspace: string, task: string, dueAt: number): PushJob => {
    const key = taskKey(workspace, task);
    return {
      id: `msg_${task}`,
      queue: queueOf(key, 'cfg'),
      seq: 1,
      taskKey: key,
      configId: 'cfg',
      workspaceId: workspace,
      body: '{}',
      attempts: 3,
      dueAt,
      createdAt: T0,
      lastError: 'HTTP 503',
    };
  };
  // receivers down: 150 of acme's deliveries wait (not due before an hour from now, so the worker leaves them be),
  // and globex's 20 are due sooner than any of them
  const acmeJobs = Array.from({ length: 150 }, (_, i) => job('acme', `a${i}`, T0 + 3_600_000 + ((i * 37) % 150) * 1_000));
  const globexJobs = Array.from({ length: 20 }, (_, i) => job('globex', `g${i}`, T0 + 60_000 + i));
  await tg.gw.store.pushJobs.enqueue([...acmeJobs, ...globexJobs]);

  const mine = (await call('GET', '/webhooks', { bearer: acme.key })).json;
  t.equal(mine.waiting.length, WAITING_SHOWN, 'bounded: not every waiting job');
  t.equal(mine.waiting_total, 150, 'with how many wait in all');
  const soonest = [...acmeJobs].sort((a, b) => a.dueAt - b.dueAt).slice(0, WAITING_SHOWN);
  t.strictSame(
    mine.waiting.map((w: any) => [w.task_id, w.due_at]),
    soonest.map((j) => [j.taskKey.slice('acme/'.length), new Date(j.dueAt).toISOString()]),
    'the soonest due first',
  );
  t.match(mine.waiting[0], { id: soonest[0]!.id, attempts: 3, last_error: 'HTTP 503' });
  t.notOk(JSON.stringify(mine).includes('globex') || JSON.stringify(mine).includes('msg_g'), "another workspace's jobs never appear");

  const theirs = (await call('GET', '/webhooks', { bearer: globex.key })).json;
  t.equal(theirs.waiting_total, 20);
  t.strictSame(
    theirs.waiting.map((w: any) => w.task_id),
    globexJobs.map((j) => j.taskKey.slice('globex/'.length)),
    'only its own, soonest first',
  );
});

t.test('connections through the API with each credential kind: the secrets go in and never come out', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${tg.url}/api/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${admin.key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const kinds = {
    none: { kind: 'none' },
    apikey: { kind: 'apikey', value: 'SECRET-apikey' },
    bearer: { kind: 'bearer', token: 'SECRET-bearer' },
    oauth: { kind: 'oauth', tokenUrl: 'http://127.0.0.1:9/token', clientId: 'client', clientSecret: 'SECRET-oauth' },
  };
  for (const [name, credentials] of Object.entries(kinds)) {
    const r = await call('POST', '/connections', { name, url: 'http://127.0.0.1:9/a2a', credentials });
    t.equal(r.status, 200, `${name}: added`);
    t.match(JSON.parse(r.text), { name, auth: name, workspace: 'acme' });
  }
  const list = await call('GET', '/connections');
  t.same(
    JSON.parse(list.text)
      .connections.map((c: any) => c.auth)
      .sort(),
    ['apikey', 'bearer', 'none', 'oauth'],
  );
  t.notMatch(list.text, /SECRET-/, 'no secret in the list');
  const updated = await call('PATCH', '/connections/bearer', { credentials: { token: 'SECRET-new' }, settings: { trust: 'admin' } });
  t.equal(updated.status, 200);
  t.notMatch(updated.text, /SECRET-/);
  t.equal((await call('DELETE', '/connections/none')).status, 200);
  t.equal((await call('GET', '/connections/none')).status, 404, 'removed');
  t.equal((await call('POST', '/connections', { name: 'apikey', url: 'http://127.0.0.1:9/a2a' })).status, 409, 'a name taken');
});

t.test('dashboard off: no pages, no admin API', async (t) => {
  const tg = await startTestGateway({ config: { dashboard: { enabled: false, sessionTtlMs: 1000 } } });
  t.teardown(() => tg.close());
  t.equal((await fetch(`${tg.url}/dashboard`)).status, 404);
  t.equal((await fetch(`${tg.url}/api/admin/session`)).status, 404);
});

t.test("a task's live view ends once the key behind it is revoked (a session's or a Bearer's); another key's stays open", async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, timers: clock, config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const doomed = await tg.key({ workspace: 'acme', trust: 'admin' });
  const other = await tg.key({ workspace: 'acme', trust: 'admin' });
  const sent = await tg.rpc({
    method: 'message/send',
    key: other.key,
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }], metadata: { agentId: 'converse' } } },
  });
  t.equal(sent.json.result.status.state, 'input-required', 'a task that stays open');
  const signIn = await fetch(`${tg.url}/api/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ key: doomed.key }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;

  /** the live view of the task, read as the dashboard's EventSource reads it */
  const live = (headers: Record<string, string>) => openLiveView(t, { url: tg.url, taskId: sent.json.result.id, headers });
  const viaSession = await live({ Cookie: cookie });
  const viaBearer = await live({ Authorization: `Bearer ${doomed.key}` });
  const kept = await live({ Authorization: `Bearer ${other.key}` });

  await revokeKey({ keys: tg.gw.store.keys, relays: tg.gw.store.relays, secret: tg.gw.secret, clock }, doomed.id);
  clock.advance(1_000);
  t.equal(await viaSession.end(5_000), 'ended', "the session's view ends");
  t.equal(await viaBearer.end(5_000), 'ended', "the Bearer key's view ends");
  clock.advance(1_000);
  t.equal(await kept.end(200), 'open', "another key's view stays open");
  await kept.cancel();
});

t.test('key creation bounds rate limits as the CLI does: whole numbers from 1 to 10^9, naming the field', async (t) => {
  const { tg, call } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const before = (await call('GET', '/keys', { bearer: admin.key })).json.keys.length;
  for (const [what, limits, field] of [
    ['1e300 per minute', { perMinute: 1e300, perHour: 10 }, 'limits.perMinute'],
    ['past 10^9 per hour', { perMinute: 10, perHour: 1_000_000_001 }, 'limits.perHour'],
  ] as const) {
    const r = await call('POST', '/keys', { bearer: admin.key, body: { trust: 'execute', limits } });
    t.equal(r.status, 400, what);
    t.equal(r.json.field, field, `${what}: names the field`);
    t.match(r.json.message, /from 1 to 1000000000/);
  }
  t.equal((await call('GET', '/keys', { bearer: admin.key })).json.keys.length, before, 'no key was created');
  const ok = await call('POST', '/keys', { bearer: admin.key, body: { trust: 'execute', limits: { perMinute: 1_000_000_000, perHour: 1_000_000_000 } } });
  t.equal(ok.status, 200, '10^9 is allowed');
});

t.test('key creation errors name their field: an expiry in the past, a scope beyond the trust level, an unknown trust', async (t) => {
  const { tg, call } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const before = (await call('GET', '/keys', { bearer: admin.key })).json.keys.length;
  for (const [what, body, field] of [
    ['an expiry in the past', { trust: 'execute', expires_at: new Date(T0 - 60_000).toISOString() }, 'expires_at'],
    ['an expiry now', { trust: 'execute', expires_at: new Date(T0).toISOString() }, 'expires_at'],
    ['a scope beyond the trust level', { trust: 'read_only', scopes: ['tasks.create'] }, 'scopes'],
    ['an unknown trust level', { trust: 'root' }, 'trust'],
  ] as const) {
    const r = await call('POST', '/keys', { bearer: admin.key, body });
    t.equal(r.status, 400, what);
    t.equal(r.json.field, field, `${what}: names the field`);
    t.match(r.json.message, new RegExp(`^${field}:`));
  }
  t.equal((await call('GET', '/keys', { bearer: admin.key })).json.keys.length, before, 'no key was created');
});

t.test("a key's agents are at most 256 agent ids, each as configured agents spell them; the error names the field", async (t) => {
  const { tg, call } = await setup(t);
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const before = (await call('GET', '/keys', { bearer: admin.key })).json.keys.length;
  const names = (n: number) => Array.from({ length: n }, (_, i) => `agent-${i}`);
  for (const [what, agents, field, message] of [
    ['257 agents', names(257), 'agents', /at most 256 agents/],
    ['an id of 300 characters', ['echo', 'x'.repeat(300)], 'agents.1', /at most 256 characters/],
    ['an id with a space', ['a b'], 'agents.0', /letters, digits/],
    ['an empty id', [''], 'agents.0', /./],
  ] as const) {
    const r = await call('POST', '/keys', { bearer: admin.key, body: { trust: 'execute', agents } });
    t.equal(r.status, 400, what);
    t.equal(r.json.field, field, `${what}: names the field`);
    t.match(r.json.message, message);
  }
  t.equal((await call('GET', '/keys', { bearer: admin.key })).json.keys.length, before, 'no key was created');
  const ok = await call('POST', '/keys', { bearer: admin.key, body: { trust: 'execute', agents: names(256) } });
  t.equal(ok.status, 200, '256 agent ids are allowed');
  t.equal(ok.json.agents.length, 256);
});

t.test("a task's live view is of the admin key's own workspace: another workspace's admin key gets 404, nothing streamed", async (t) => {
  const tg = await startTestGateway({ config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const acme = await tg.key({ workspace: 'acme', trust: 'admin' });
  const globex = await tg.key({ workspace: 'globex', trust: 'admin' });
  const sent = await tg.rpc({
    method: 'message/send',
    key: acme.key,
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }], metadata: { agentId: 'converse' } } },
  });
  t.equal(sent.json.result.status.state, 'input-required', 'a task that stays open');
  const res = await fetch(`${tg.url}/api/admin/tasks/${sent.json.result.id}/events`, { headers: { Authorization: `Bearer ${globex.key}` } });
  t.equal(res.status, 404, "another workspace's task is not found");
  t.match(res.headers.get('content-type'), /application\/json/, 'no stream is opened');
  t.match(((await res.json()) as { error: string }).error, 'not_found');
});
