// Webhook delivery end to end: the real gateway (port 0, real LMDB), real receivers on loopback, a ManualClock for time.
//
// 127.0.0.1 is admitted by `push.allowlist` (receivers listen there); every other internal address
// stays refused. DNS is outside the project: where a test needs a name, the gateway's injected
// `lookup` stands in for it.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/config/schema.js';
import { INTERNAL_FIELDS } from '../../src/protocol/internal-fields.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Resolve } from '../../src/runtime/net/guard.js';
import { jsonOut, runCli } from '../support/cli.js';
import { msgA, msgB, startTestGateway, TEST_SECRET, type TestGateway } from '../support/gateway.js';
import { drive, keysDeep, runs, startReceiver, verifySignature, type Delivery } from '../support/webhooks.js';

const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 5_000, maxAttempts: 6, backoffBaseMs: 1_000, backoffMaxMs: 4_000 };
const STEP = PUSH.backoffMaxMs;

async function gateway(
  t: { teardown(fn: () => unknown): void },
  o: { clock: ManualClock; dataDir?: string; push?: Partial<typeof PUSH>; lookup?: Resolve; config?: ConfigInput },
): Promise<TestGateway> {
  const tg = await startTestGateway({
    clock: o.clock,
    timers: o.clock,
    dataDir: o.dataDir,
    lookup: o.lookup,
    config: { ...o.config, push: { ...PUSH, ...o.push } },
  });
  t.teardown(() => tg.close());
  return tg;
}

const ok = (ds: Delivery[]) => ds.filter((d) => d.status >= 200 && d.status < 300);
const states = (ds: Delivery[]) => ds.map((d) => d.json?.status?.state as string);

t.test('every update of a task, signed, in order, through two failed attempts (rev B, secret from the CLI)', async (t) => {
  const clock = new ManualClock();
  const tg = await gateway(t, { clock });
  const rx = await startReceiver({ answer: (n) => ({ status: n <= 2 ? 500 : 200 }) });
  t.teardown(() => rx.close());
  const { key } = await tg.key();

  // the operator's view: the secret comes from the real CLI, on the store the running server uses
  // (with the server's own server secret, as an operator's CLI has it: the stored secret is sealed under it)
  const cli = await runCli(['webhooks', 'secret', 'rotate', '--workspace', 'ws1', '--data-dir', tg.dataDir, '--json'], { secret: Buffer.from(TEST_SECRET) });
  t.equal(cli.code, 0, cli.stderr);
  const { workspace, secret } = jsonOut(cli) as { workspace: string; secret: string };
  t.equal(workspace, 'ws1');
  t.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  t.notMatch(cli.stderr, secret, 'the secret goes to stdout only');

  const first = await tg.rpc({
    method: 'message/send',
    key,
    params: {
      ...msgB('one', { metadata: { agentId: 'converse' } }),
      metadata: { trace: 'abc' },
      configuration: { pushNotificationConfig: { url: rx.url, token: 'tok-1' } },
    },
  });
  t.equal(first.json.result.status.state, 'input-required', 'delivery failures do not hold the task up');
  const taskId: string = first.json.result.id;
  for (const text of ['two', 'done']) {
    const r = await tg.rpc({ method: 'message/send', key, params: msgB(text, { taskId }) });
    t.ok(r.json.result, `follow-up '${text}' answered`);
  }

  const done = await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => ok(rx.deliveries).some((d) => d.json?.status?.state === 'completed') });
  t.ok(done, 'the completed update arrived');
  const all = rx.deliveries;
  const good = ok(all);

  t.same(runs(states(good)), ['submitted', 'working', 'input-required', 'working', 'input-required', 'working', 'completed'], 'every state change, in order');
  t.same(
    all.slice(0, 3).map((d) => d.status),
    [500, 500, 200],
  );
  t.equal(new Set(all.slice(0, 3).map((d) => d.headers['webhook-id'])).size, 1, 'a retried job keeps its webhook-id');
  t.equal(new Set(good.map((d) => d.headers['webhook-id'])).size, good.length, 'each update has its own webhook-id');
  const historyLengths = good.map((d) => (d.json.history as unknown[]).length);
  t.same(
    historyLengths,
    [...historyLengths].sort((a, b) => a - b),
    'the history only grows from one delivery to the next',
  );

  for (const d of all) {
    t.ok(verifySignature({ secret, headers: d.headers, body: d.body }), `delivery ${d.n}: signature verifies with the CLI's secret`);
    t.equal(d.headers['x-a2a-notification-token'], 'tok-1', `delivery ${d.n}: token header`);
    t.match(d.headers['content-type'], /^application\/json/);
    t.match(d.headers['webhook-timestamp'], /^\d{10}$/, 'timestamp in seconds');
    t.equal(d.json.kind, 'task', 'a rev B task');
    t.equal(d.json.id, taskId);
    t.equal(d.json.metadata?.trace, 'abc', "the caller's metadata is kept");
    const leaked = [...INTERNAL_FIELDS].filter((f) => keysDeep(d.json).has(f));
    t.same(leaked, [], `delivery ${d.n}: no internal field at any depth`);
  }
  t.equal(Number(all[0]!.headers['webhook-timestamp']), Date.UTC(2026, 0, 1) / 1000, 'timestamps come from the injected clock');
  t.ok(Number(all[2]!.headers['webhook-timestamp']) > Number(all[0]!.headers['webhook-timestamp']), 'each attempt is stamped anew');
  t.same(await tg.gw.store.pushJobs.list(), [], 'nothing left waiting');

  const card = await (await fetch(`${tg.url}/.well-known/agent-card.json`)).json();
  t.equal(card.capabilities.pushNotifications, true, 'the card says push is supported');
});

t.test('several configs per task; rev A bodies; a config set later gets the updates after it', async (t) => {
  const clock = new ManualClock();
  // the second receiver is reached by name, through the guarded lookup (this stands in for DNS)
  const lookup: Resolve = async (host) => (host === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const tg = await gateway(t, { clock, lookup });
  const r1 = await startReceiver();
  const r2 = await startReceiver();
  const r2url = `http://receiver.test:${r2.port}/hook`;
  t.teardown(() => Promise.all([r1.close(), r2.close()]));
  const { key } = await tg.key();
  const secret = await tg.gw.push.secrets.rotate('ws1');

  const a = await tg.rpc({
    method: 'tasks/send',
    key,
    params: msgA('hello', { id: 'a-multi', metadata: { agentId: 'converse' }, pushNotification: { url: r1.url, token: 'one' } }),
  });
  t.equal(a.json.result.status.state, 'input-required');
  const set = await tg.rpc({
    method: 'tasks/pushNotification/set',
    key,
    params: { id: 'a-multi', pushNotificationConfig: { url: r2url, authentication: { schemes: ['Bearer'], credentials: 'cred-2' } } },
  });
  t.same(set.json.result, { id: 'a-multi', pushNotificationConfig: { url: r2url, authentication: { schemes: ['Bearer'], credentials: '********' } } });
  const list = await tg.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: 'a-multi' } });
  t.equal(list.json.result.length, 2, 'two configs on one task');
  await tg.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'a-multi' }) });

  t.ok(await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => [r1, r2].every((r) => states(ok(r.deliveries)).includes('completed')) }));
  t.same(runs(states(r1.deliveries)), ['submitted', 'working', 'input-required', 'working', 'completed'], 'the first config: every update');
  t.same(runs(states(r2.deliveries)), ['working', 'completed'], 'the second (by name): from its registration on');
  t.equal(r2.deliveries[0]!.headers.host, `receiver.test:${r2.port}`, 'the request names the host it was given');
  for (const d of [...r1.deliveries, ...r2.deliveries]) {
    t.ok(verifySignature({ secret, headers: d.headers, body: d.body }), 'signed');
    t.equal(d.json.id, 'a-multi');
    t.type(d.json.sessionId, 'string', 'rev A shape: sessionId');
    t.notOk('kind' in d.json, 'rev A shape: no kind');
  }
  t.ok(r1.deliveries.every((d) => d.headers['x-a2a-notification-token'] === 'one' && d.headers.authorization === undefined));
  t.ok(
    r2.deliveries.every((d) => d.headers['x-a2a-notification-token'] === undefined && d.headers.authorization === 'Bearer cred-2'),
    'no token given, none sent; bearer credentials sent',
  );
  const last = r1.deliveries[r1.deliveries.length - 1]!;
  t.match(last.json.artifacts[0].parts[0], { type: 'text' }, 'rev A parts carry type');
});

t.test('a restart in the middle of retries loses nothing and keeps the order', async (t) => {
  const clock = new ManualClock();
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-push-restart-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let up = false;
  const rx = await startReceiver({ answer: () => ({ status: up ? 200 : 503 }) });
  t.teardown(() => rx.close());

  const one = await startTestGateway({ clock, timers: clock, dataDir, config: { push: PUSH } });
  const secret = await one.gw.push.secrets.rotate('ws1');
  const { key } = await one.key();
  const sent = await one.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('hi', { metadata: { agentId: 'echo' } }), configuration: { pushNotificationConfig: { url: rx.url } } },
  });
  t.equal(sent.json.result.status.state, 'completed');
  await one.gw.push.idle();
  clock.advance(STEP);
  await one.gw.push.idle();
  t.same(
    rx.deliveries.map((d) => d.status),
    [503, 503],
    'two failed attempts before the stop',
  );
  const waiting = await one.gw.store.pushJobs.list();
  t.ok(waiting.length >= 3, `updates wait in the store (${waiting.length})`);
  t.equal(waiting[0]!.attempts, 2);
  t.match(waiting[0]!.lastError, /HTTP 503/);
  await one.close();

  up = true;
  const two = await startTestGateway({ clock, timers: clock, dataDir, config: { push: PUSH } });
  t.teardown(() => two.close());
  t.ok(await drive({ gw: two.gw, clock, stepMs: STEP, done: () => states(ok(rx.deliveries)).includes('completed') }));
  const good = ok(rx.deliveries);
  t.same(runs(states(good)), ['submitted', 'working', 'completed'], 'the rest arrived, in order, after the restart');
  t.equal(good.length, waiting.length, 'each waiting job delivered once');
  t.equal(good[0]!.headers['webhook-id'], rx.deliveries[0]!.headers['webhook-id'], 'the retried job kept its webhook-id across the restart');
  t.ok(
    rx.deliveries.every((d) => verifySignature({ secret, headers: d.headers, body: d.body })),
    'signed with the stored secret before and after',
  );
  t.same(await two.gw.store.pushJobs.list(), []);
});

t.test('410 Gone disables the config: nothing more goes to it', async (t) => {
  const clock = new ManualClock();
  const tg = await gateway(t, { clock });
  const gone = await startReceiver({ answer: () => ({ status: 410 }) });
  const live = await startReceiver();
  t.teardown(() => Promise.all([gone.close(), live.close()]));
  const { key } = await tg.key();

  const r = await tg.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('one', { metadata: { agentId: 'converse' } }), configuration: { pushNotificationConfig: { id: 'gone-cfg', url: gone.url } } },
  });
  const taskId: string = r.json.result.id;
  await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => false, maxSteps: 3 });
  t.equal(gone.deliveries.length, 1, 'one attempt, then the queued updates were dropped');
  t.equal((await tg.gw.store.pushConfigs.get(`ws1/${taskId}`, 'gone-cfg'))?.disabled, true, 'the config is disabled in the store');

  await tg.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { id: 'live-cfg', url: live.url } } });
  await tg.rpc({ method: 'message/send', key, params: msgB('done', { taskId }) });
  t.ok(await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => states(live.deliveries).includes('completed') }));
  t.equal(gone.deliveries.length, 1, 'the disabled config got nothing more');
  t.same(runs(states(live.deliveries)), ['working', 'completed'], 'the other config of the task still gets its updates');
  t.same(await tg.gw.store.pushJobs.list(), []);
});

t.test('a receiver that never answers: the task is not held up, the attempt times out and is retried', async (t) => {
  const clock = new ManualClock();
  const tg = await gateway(t, { clock });
  const rx = await startReceiver({ answer: (n) => (n === 1 ? { status: 0, hang: true } : { status: 204 }) });
  t.teardown(() => rx.close());
  const { key } = await tg.key();
  const r = await tg.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('x', { metadata: { agentId: 'echo' } }), configuration: { pushNotificationConfig: { url: rx.url } } },
  });
  t.equal(r.json.result.status.state, 'completed', 'the send finished while the first delivery hangs');
  while (rx.deliveries.length === 0) await new Promise((done) => setImmediate(done));
  clock.advance(PUSH.timeoutMs);
  await tg.gw.push.idle();
  const [job] = await tg.gw.store.pushJobs.list();
  t.match(job?.lastError, /no answer within 5000 ms/, 'the timeout ended the attempt');
  t.ok(await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => states(ok(rx.deliveries)).includes('completed') }));
  t.same(runs(states(ok(rx.deliveries))), ['submitted', 'working', 'completed']);
  t.equal(rx.deliveries[1]!.headers['webhook-id'], rx.deliveries[0]!.headers['webhook-id'], 'the retry is the same job');
});

t.test('a receiver that answers 2xx but never ends its body: delivered at its status, once, with no clock moved', async (t) => {
  const clock = new ManualClock();
  const tg = await gateway(t, { clock });
  const rx = await startReceiver({ answer: () => ({ status: 200, endless: true }) });
  t.teardown(() => rx.close());
  const { key } = await tg.key();
  await tg.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('x', { metadata: { agentId: 'echo' } }), configuration: { pushNotificationConfig: { url: rx.url } } },
  });
  // no time passes on the gateway's clock: each attempt must end at the status line, not at the timeout
  const until = Date.now() + 5_000;
  while (rx.deliveries.length < 3 && Date.now() < until) await new Promise((done) => setImmediate(done));
  // (without that, the attempts wait for the clock: waiting for them here would never end)
  if (!t.same(states(rx.deliveries), ['submitted', 'working', 'completed'], 'every update delivered without waiting for the body')) return;
  await tg.gw.push.idle();
  for (let i = 0; i < 4; i++) {
    clock.advance(PUSH.timeoutMs);
    await tg.gw.push.idle();
  }
  t.equal(rx.deliveries.length, 3, 'none delivered again after a timeout');
  t.same(await tg.gw.store.pushJobs.list(), [], 'nothing left waiting');
});

t.test('SSRF: refused at registration with the reason, never followed, checked again at connect time', async (t) => {
  const clock = new ManualClock();
  // a stand-in for DNS: one name that points inside, one whose answer changes after registration (rebinding)
  let flipped = false;
  const lookup: Resolve = async (host) => {
    if (host === 'inside.test') return [{ address: '127.0.0.2', family: 4 }];
    if (host === 'flip.test') return [{ address: flipped ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  const tg = await gateway(t, { clock, lookup, push: { maxAttempts: 3 } });
  // a server on another loopback address, not admitted: nothing may ever reach it
  const trap = await startReceiver({ host: '127.0.0.2' });
  const redirector = await startReceiver({ answer: () => ({ status: 302, headers: { location: trap.url } }) });
  t.teardown(() => Promise.all([trap.close(), redirector.close()]));
  const { key } = await tg.key();
  const seed = await tg.rpc({ method: 'message/send', key, params: msgB('one', { metadata: { agentId: 'converse' } }) });
  const taskId: string = seed.json.result.id;

  const refusals: Array<[string, RegExp]> = [
    ['http://10.0.0.5/hook', /^push URL refused: points to a private address 10\.0\.0\.5$/],
    ['http://192.168.1.20/hook', /private address/],
    [`http://localhost:${trap.port}/hook`, /^push URL refused: 'localhost' names a loopback address$/],
    [`http://inside.test:${trap.port}/hook`, /^push URL refused: resolves to a loopback address 127\.0\.0\.2$/],
    [`http://127.0.0.2:${trap.port}/hook`, /loopback address 127\.0\.0\.2/],
    [`http://[::ffff:127.0.0.2]:${trap.port}/hook`, /loopback address/],
    ['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
    ['http://100.64.1.1/hook', /CGNAT/],
    ['ftp://127.0.0.1/hook', /^push URL refused: scheme 'ftp' is not allowed \(http or https only\)$/],
  ];
  for (const [url, why] of refusals) {
    const b = await tg.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url } } });
    t.equal(b.json.error?.code, -32602, `${url}: -32602`);
    t.match(b.json.error?.message, why, `${url}: ${b.json.error?.message}`);
    t.equal(b.json.error?.data?.path, 'params.pushNotificationConfig.url', 'names the field');
  }
  const a = await tg.rpc({ method: 'tasks/pushNotification/set', key, params: { id: taskId, pushNotificationConfig: { url: 'http://10.9.9.9/' } } });
  t.equal(a.json.error?.code, -32602, 'rev A set is checked the same way');
  t.same(await tg.gw.store.pushConfigs.list(`ws1/${taskId}`), [], 'no refused config was stored');

  // inline on send: refused before anything is stored (no task made)
  const before = (await tg.gw.store.tasks.listByState(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'])).length;
  const inlineB = await tg.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('x'), configuration: { pushNotificationConfig: { url: 'http://192.168.0.1/h' } } },
  });
  t.equal(inlineB.json.error?.code, -32602);
  t.equal(inlineB.json.error?.data?.path, 'params.configuration.pushNotificationConfig.url');
  const inlineA = await tg.rpc({
    method: 'tasks/send',
    key,
    params: msgA('x', { id: 'a-refused', pushNotification: { url: `http://localhost:${trap.port}/` } }),
  });
  t.equal(inlineA.json.error?.code, -32602);
  t.equal(inlineA.json.error?.data?.path, 'params.pushNotification.url');
  const follow = await tg.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('x', { taskId }), configuration: { pushNotificationConfig: { url: 'ftp://h/' } } },
  });
  t.equal(follow.json.error?.code, -32602, 'a follow-up with a bad inline config is refused too');
  t.equal((await tg.rpc({ method: 'tasks/get', key, params: { id: 'a-refused' } })).json.error?.code, -32001, 'the refused rev A send made no task');
  t.equal(
    (await tg.gw.store.tasks.listByState(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'])).length,
    before,
    'no task was stored',
  );
  t.equal((await tg.rpc({ method: 'tasks/get', key, params: { id: taskId } })).json.result.history.length, 2, 'the refused follow-up did not reach the task');

  // admitted at registration, then: a redirect to a refused address, and a name that rebinds to one
  const viaRedirect = await tg.rpc({
    method: 'tasks/pushNotificationConfig/set',
    key,
    params: { taskId, pushNotificationConfig: { id: 'redirect', url: redirector.url } },
  });
  t.ok(viaRedirect.json.result, 'the allowlisted receiver is accepted');
  const viaName = await tg.rpc({
    method: 'tasks/pushNotificationConfig/set',
    key,
    params: { taskId, pushNotificationConfig: { id: 'rebind', url: `http://flip.test:${trap.port}/hook` } },
  });
  t.ok(viaName.json.result, 'flip.test resolves to an admitted address at registration');
  flipped = true;
  await tg.rpc({ method: 'message/send', key, params: msgB('done', { taskId }) });
  await tg.gw.push.idle();
  const jobs = await tg.gw.store.pushJobs.list();
  const lastErrorOf = (cfg: string) => jobs.find((j) => j.configId === cfg)?.lastError;
  t.match(lastErrorOf('redirect'), /HTTP 302 \(redirects are not followed\)/, 'a 3xx is a failed attempt');
  t.match(lastErrorOf('rebind'), /flip\.test resolves to a loopback address 127\.0\.0\.2/, 'the address is checked again at connect time');
  await drive({ gw: tg.gw, clock, stepMs: STEP, done: () => false, maxSteps: 16 });
  const tries = redirector.deliveries.length;
  t.ok(tries >= 6 && tries % 3 === 0, `each update's job was tried maxAttempts (3) times, then given up (${tries} requests)`);
  t.same(await tg.gw.store.pushJobs.list(), [], 'given up after maxAttempts');
  t.equal(trap.deliveries.length, 0, 'the refused address never got a request');
});
