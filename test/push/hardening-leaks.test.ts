// Issue 6 scope and secret leaks: webhooks carry what the registering key may read, push secrets are write-only,
// and a revoked key's streams and webhooks stop. Each test is named after the issue item it covers.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { revokeKey } from '../../src/runtime/key-admin.js';
import { pushConfigSeal } from '../../src/runtime/push/config-secrets.js';
import { msgB, startTestGateway, TEST_SECRET, type TestGateway } from '../support/gateway.js';
import { onRedis } from '../support/instance-pair.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { openSse, type SseClient, type SseFrame } from '../support/sse.js';
import { drive, startReceiver } from '../support/webhooks.js';

/** The next frame with data (comments such as `: stream open` and pings skipped). */
async function nextData(s: SseClient): Promise<SseFrame | undefined> {
  for (;;) {
    const f = await s.next();
    if (!f || f.data !== undefined) return f;
  }
}

const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 5_000, maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 2_000 };

async function gateway(t: Test, clock: ManualClock, config: Record<string, unknown> = {}): Promise<TestGateway> {
  const tg = await startTestGateway({ clock, timers: clock, config: { push: PUSH, ...config } });
  t.teardown(() => tg.close());
  return tg;
}

const fileMsg = () => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: `m-${Math.random()}`,
    parts: [
      { kind: 'text', text: 'secret words' },
      { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('file bytes').toString('base64') } },
    ],
  },
});

t.test('item 5: a webhook carries what the registering key may read, as tasks/get shows it', async (t) => {
  const clock = new ManualClock(Date.now());
  const tg = await gateway(t, clock);
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const noResults = await tg.key({ trust: 'execute', scopes: ['tasks.create', 'tasks.read'] });
  const noFiles = await tg.key({ trust: 'execute' });
  const all = await tg.key({ trust: 'autonomous' });

  const send = async (key: string, tag: string) => {
    const r = await tg.rpc({ key, method: 'message/send', params: { ...fileMsg(), configuration: { pushNotificationConfig: { url: `${rx.url}?${tag}` } } } });
    t.equal(r.json.result?.status?.state, 'completed', `${tag}: sent`);
    return r.json.result;
  };
  const [a, b, c] = [await send(noResults.key, 'no-results'), await send(noFiles.key, 'no-files'), await send(all.key, 'all')];
  const lastFor = (tag: string) => rx.deliveries.filter((d) => d.path.endsWith(`?${tag}`) && d.json?.status?.state === 'completed').at(-1);
  t.ok(await drive({ gw: tg.gw, clock, stepMs: 1000, done: () => ['no-results', 'no-files', 'all'].every((x) => lastFor(x)) }), 'all delivered');

  const getAs = async (key: string, id: string) => (await tg.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
  t.same(lastFor('no-results')!.json.artifacts, [], 'without results.read: no artifacts');
  t.equal(lastFor('no-results')!.json.history, undefined, 'no history');
  t.notMatch(JSON.stringify(lastFor('no-results')!.json), /secret words|ZmlsZSBieXRlcw/, 'nothing of the results');
  t.same(lastFor('no-results')!.json.artifacts, (await getAs(noResults.key, a.id)).artifacts, 'as tasks/get shows it to that key');
  const fileOf = (task: { artifacts: Array<{ parts: Array<{ kind: string; file?: unknown }> }> }) =>
    task.artifacts[0]!.parts.find((p) => p.kind === 'file')!.file;
  t.same(fileOf(lastFor('no-files')!.json), { name: 'a.txt', mimeType: 'text/plain' }, 'without results.files: file parts lose their bytes');
  t.same(fileOf(lastFor('no-files')!.json), fileOf(await getAs(noFiles.key, b.id)), 'as tasks/get shows it to that key');
  t.match(fileOf(lastFor('all')!.json), { bytes: Buffer.from('file bytes').toString('base64') }, 'a key with both scopes gets everything');
  t.same(lastFor('all')!.json.artifacts, (await getAs(all.key, c.id)).artifacts);
});

t.test('item 6: push secrets are write-only: reads (any key) show that they are set, never their value', async (t) => {
  const clock = new ManualClock(Date.now());
  const tg = await gateway(t, clock);
  const owner = await tg.key({ trust: 'admin' });
  const reader = await tg.key({ trust: 'read_only' });
  const made = await tg.rpc({ key: owner.key, method: 'message/send', params: msgB('x', { metadata: { agentId: 'converse' } }) });
  const taskId: string = made.json.result.id;
  const config = {
    id: 'cfg-1',
    url: 'http://127.0.0.1:9/hook',
    token: 'tok-very-secret',
    authentication: { schemes: ['Bearer'], credentials: 'cred-very-secret' },
  };
  const set = await tg.rpc({ key: owner.key, method: 'tasks/pushNotificationConfig/set', params: { taskId, pushNotificationConfig: config } });
  const get = await tg.rpc({ key: reader.key, method: 'tasks/pushNotificationConfig/get', params: { id: taskId, pushNotificationConfigId: 'cfg-1' } });
  const list = await tg.rpc({ key: reader.key, method: 'tasks/pushNotificationConfig/list', params: { id: taskId } });
  const getA = await tg.rpc({ key: reader.key, method: 'tasks/pushNotification/get', params: { id: taskId } });
  for (const [what, r] of [
    ['set', set],
    ['get', get],
    ['list', list],
    ['rev A get', getA],
  ] as const) {
    const text = JSON.stringify(r.json);
    t.ok(r.json.result, `${what}: answered`);
    t.notMatch(text, /very-secret/, `${what}: no secret value`);
    t.match(text, /"token":"\*{8}"/, `${what}: the token reads as set`);
    t.match(text, /"credentials":"\*{8}"/, `${what}: the credentials read as set`);
  }
  const stored = await tg.gw.store.pushConfigs.get(`ws1/${taskId}`, 'cfg-1');
  t.equal(stored?.sealed, true, 'the store keeps the secrets sealed');
  t.notMatch(JSON.stringify(stored), /very-secret/, 'no secret value in the stored record');
  const opened = pushConfigSeal({ secret: Buffer.from(TEST_SECRET) }).open(stored!);
  t.equal(opened.token, 'tok-very-secret', 'they open, under the server secret, to what deliveries present');
});

for (const engine of ['lmdb', 'redis'] as const) {
  t.test(`item 7 (${engine}): revoking a key ends its open streams within one key check, on every instance`, async (t) => {
    const clock = new ManualClock(Date.now());
    const prefix = testPrefix('revoke');
    const config = (id: string) => (engine === 'redis' ? onRedis({ prefix, id }) : {});
    const a = await gateway(t, clock, config('gw-a'));
    const b = engine === 'redis' ? await gateway(t, clock, config('gw-b')) : a;
    if (engine === 'redis') t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
    const doomed = await a.key();
    const other = await a.key();
    const slow = {
      message: {
        kind: 'message',
        role: 'user',
        messageId: `m-${Math.random()}`,
        parts: [{ kind: 'data', data: { ms: 60_000, steps: 1 } }],
        metadata: { agentId: 'slow' },
      },
    };
    const s = await openSse({ url: b.url, key: doomed.key, method: 'message/stream', params: slow });
    const kept = await openSse({ url: b.url, key: other.key, method: 'message/stream', params: slow });
    t.equal((await nextData(s))?.data?.result?.kind, 'task', 'the stream is open');
    t.equal((await nextData(kept))?.data?.result?.kind, 'task');
    await revokeKey({ keys: a.gw.store.keys, relays: a.gw.store.relays, secret: a.gw.secret, clock }, doomed.id);
    clock.advance(1_000);
    const rest = await s.all();
    t.equal(rest.at(-1)?.data?.error?.code, -32003, 'the stream ends with -32003');
    t.match(rest.at(-1)?.data?.error?.message, /revoked/);
    clock.advance(1_000);
    const more = await Promise.race([nextData(kept), new Promise((r) => setTimeout(() => r('still open'), 200))]);
    t.equal(more, 'still open', "another key's stream stays open");
    kept.close();
  });
}

t.test('item 7: webhooks registered by a revoked key stop, queued deliveries included', async (t) => {
  const clock = new ManualClock(Date.now());
  const tg = await gateway(t, clock);
  let down = true;
  const rx = await startReceiver({ answer: () => ({ status: down ? 503 : 200 }) });
  t.teardown(() => rx.close());
  const doomed = await tg.key();
  const r = await tg.rpc({
    key: doomed.key,
    method: 'message/send',
    params: { ...msgB('one', { metadata: { agentId: 'converse' } }), configuration: { pushNotificationConfig: { url: rx.url } } },
  });
  const taskId: string = r.json.result.id;
  await tg.gw.push.idle();
  const before = rx.deliveries.length;
  t.ok(before >= 1, 'a first attempt was made (and failed)');
  await revokeKey({ keys: tg.gw.store.keys, relays: tg.gw.store.relays, secret: tg.gw.secret, clock }, doomed.id);
  down = false;
  // the task moves on (another key of the workspace finishes it): a new update, and the queued retries
  const other = await tg.key();
  const done = await tg.rpc({ key: other.key, method: 'message/send', params: msgB('done', { taskId }) });
  t.equal(done.json.result?.status?.state, 'completed');
  await drive({ gw: tg.gw, clock, stepMs: 2_000, done: () => false, maxSteps: 6 });
  t.equal(rx.deliveries.length, before, 'nothing was delivered after the revocation');
  t.same(await tg.gw.store.pushJobs.list(), [], 'and nothing waits');
});
