// Every A2A 1.0 JSON-RPC method over real HTTP against the real server (LMDB in a temp dir, demo agents): 1.0 shapes
// out, the A2A-Version header, 1.0 error shapes, scopes, ListTasks paging and isolation, SSE with replay and pings.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse, type SseFrame } from '../support/sse.js';
import { startReceiver } from '../support/webhooks.js';
import { until } from '../support/a2a-client.js';

const V1 = { 'A2A-Version': '1.0' };
let n = 0;
const msg = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ messageId: `m-${++n}`, role: 'ROLE_USER', parts, ...extra });
const text = (s: string, extra: Record<string, unknown> = {}) => ({ message: msg([{ text: s }], extra) });
const slow = (ms: number, o: { steps?: number; config?: Record<string, unknown> } = {}) => ({
  message: msg([{ data: { ms, steps: o.steps ?? 1 } }], { metadata: { agentId: 'slow' } }),
  ...(o.config && { configuration: o.config }),
});
const INTERNAL = ['workspace_id', 'api_key_id', 'internal_task_id'];
const results = (frames: SseFrame[]) => frames.filter((f) => f.data).map((f) => f.data.result);

let gw: TestGateway;
let key: string;
const call = (method: string, params: unknown, o: { key?: string; headers?: Record<string, string>; path?: string } = {}) =>
  gw.rpc({ method, params, key: o.key ?? key, headers: { ...V1, ...o.headers }, ...(o.path && { path: o.path }) });

t.before(async () => {
  gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  key = (await gw.key({ workspace: 'ws-v1' })).key;
});
t.teardown(() => gw.close());

t.test('SendMessage: {task} in 1.0 shapes, no kind, enums as TASK_STATE_* / ROLE_*', async (t) => {
  const parts = [{ text: 'hello 1.0' }, { raw: Buffer.from('body').toString('base64'), mediaType: 'text/plain', filename: 'a.txt' }, { data: { n: 1 } }];
  const r = await call('SendMessage', { message: msg(parts, { metadata: { agentId: 'echo' } }) });
  t.equal(r.status, 200);
  const task = r.json.result.task;
  t.ok(task, 'the result is {task}');
  t.equal(task.status.state, 'TASK_STATE_COMPLETED');
  t.type(task.id, 'string');
  t.type(task.contextId, 'string');
  t.same(task.artifacts[0].parts, parts, 'the echo comes back in 1.0 parts');
  t.equal(task.history[0].role, 'ROLE_USER');
  t.same(task.history[0].parts, parts);
  t.notOk(/"kind"/.test(JSON.stringify(r.json)), 'no kind anywhere');
  for (const f of INTERNAL) t.notOk(f in task.metadata, `${f} is not shown`);
  const got = await call('GetTask', { id: task.id, historyLength: 0 });
  t.equal(got.json.result.id, task.id, 'GetTask answers the bare Task');
  t.equal(got.json.result.status.state, 'TASK_STATE_COMPLETED');
  t.notOk('history' in got.json.result, 'historyLength 0: no history field (1.0 3.2.4)');
  const old = await gw.rpc({ method: 'tasks/get', key, params: { id: task.id } });
  t.equal(old.json.result.status.state, 'TASK_STATE_COMPLETED', "a shared 0.x name without header answers in the task's dialect (1.0)");
  const asB = await gw.rpc({ method: 'tasks/get', key, params: { id: task.id }, headers: { 'A2A-Version': '0.3' } });
  t.equal(asB.json.result.kind, 'task', 'and in 0.3 when the header says so');
});

t.test('multi-turn: input-required, a follow-up names the task in message.taskId, then completed', async (t) => {
  const first = await call('SendMessage', text('first point', { metadata: { agentId: 'converse' } }));
  const task = first.json.result.task;
  t.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  t.equal(task.status.message.role, 'ROLE_AGENT');
  const second = await call('SendMessage', text('done', { taskId: task.id, contextId: task.contextId }));
  t.equal(second.json.result.task.id, task.id, 'the same task');
  t.equal(second.json.result.task.status.state, 'TASK_STATE_COMPLETED');
  t.ok(second.json.result.task.history.length >= 3, 'the history holds both turns');
  const unknown = await call('SendMessage', text('x', { taskId: 'no-such-task' }));
  t.equal(unknown.json.error.code, -32001, 'a taskId that names no task: TaskNotFound');
  t.equal(unknown.json.error.data[0].reason, 'TASK_NOT_FOUND');
  t.equal(unknown.json.error.data[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
});

t.test('returnImmediately, CancelTask, TaskNotCancelable', async (t) => {
  const r = await call('SendMessage', slow(30_000, { config: { returnImmediately: true } }));
  const id = r.json.result.task.id;
  t.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(r.json.result.task.status.state), 'answered before the task ends');
  const c = await call('CancelTask', { id });
  t.equal(c.json.result.status.state, 'TASK_STATE_CANCELED');
  const again = await call('CancelTask', { id });
  t.equal(again.json.error.code, -32002);
  t.equal(again.json.error.data[0].reason, 'TASK_NOT_CANCELABLE');
});

t.test('ListTasks: newest first, paged, filtered by context and state; only what the key may see', async (t) => {
  const mine = (await gw.key({ workspace: 'ws-list' })).key;
  const ctx = 'ctx-list';
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await call('SendMessage', text(`e${i}`, { contextId: ctx, metadata: { agentId: 'echo' } }), { key: mine });
    ids.push(r.json.result.task.id);
  }
  const conv = await call('SendMessage', text('open', { metadata: { agentId: 'converse' } }), { key: mine });
  const all = await call('ListTasks', {}, { key: mine });
  t.equal(all.json.result.totalSize, 6);
  t.equal(all.json.result.nextPageToken, '', 'one page holds them all');
  const times = all.json.result.tasks.map((x: { status: { timestamp: string } }) => Date.parse(x.status.timestamp));
  t.ok(
    times.every((x: number, i: number) => i === 0 || x <= times[i - 1]),
    'the newest status first',
  );
  t.notOk('artifacts' in all.json.result.tasks[0], 'no artifacts unless asked (not even an empty list)');

  const seen: string[] = [];
  let token = '';
  for (let page = 0; page < 5; page++) {
    const r = await call('ListTasks', { contextId: ctx, pageSize: 2, ...(token && { pageToken: token }) }, { key: mine });
    t.equal(r.json.result.totalSize, 5);
    t.equal(r.json.result.pageSize, 2);
    seen.push(...r.json.result.tasks.map((x: { id: string }) => x.id));
    token = r.json.result.nextPageToken;
    if (!token) break;
  }
  t.same([...seen].sort(), [...ids].sort(), 'three pages of the context, each task once');

  const waiting = await call('ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED', includeArtifacts: true, historyLength: 1 }, { key: mine });
  t.same(
    waiting.json.result.tasks.map((x: { id: string }) => x.id),
    [conv.json.result.task.id],
    'filtered by state',
  );
  t.equal(waiting.json.result.tasks[0].history.length, 1, 'historyLength applies');

  const other = (await gw.key({ workspace: 'ws-other' })).key;
  t.equal((await call('ListTasks', {}, { key: other })).json.result.totalSize, 0, "another workspace's key sees none of them");
  const echoOnly = (await gw.key({ workspace: 'ws-list', agents: ['converse'] })).key;
  const limited = await call('ListTasks', {}, { key: echoOnly });
  t.same(
    limited.json.result.tasks.map((x: { id: string }) => x.id),
    [conv.json.result.task.id],
    'a key limited to some agents sees only their tasks',
  );
  const perAgent = await call('ListTasks', {}, { key: mine, path: '/api/a2a/agents/converse' });
  t.equal(perAgent.json.result.totalSize, 1, "a per-agent path lists that agent's tasks");
  const asRevB = await gw.rpc({
    method: 'tasks/list',
    key: mine,
    params: { contextId: ctx, state: 'completed', pageSize: 1 },
    headers: { 'A2A-Version': '0.3' },
  });
  t.equal(asRevB.json.result.tasks[0].kind, 'task', 'tasks/list: the same listing for the revisions, in their shapes');
  t.equal(asRevB.json.result.totalSize, 5);
  const bad = await call('ListTasks', { pageSize: 0 }, { key: mine });
  t.equal(bad.json.error.code, -32602);
  t.equal(bad.json.error.data[0].metadata.path, 'params.pageSize');
});

t.test('push configs: create, get, list, delete in 1.0 shapes, secrets masked', async (t) => {
  const r = await call('SendMessage', text('x', { metadata: { agentId: 'echo' } }));
  const taskId = r.json.result.task.id;
  const hook = 'http://127.0.0.1:9/hook';
  const made = await call('CreateTaskPushNotificationConfig', { taskId, url: hook, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } });
  t.equal(made.json.result.taskId, taskId);
  t.equal(made.json.result.url, hook);
  t.equal(made.json.result.token, '********', 'the token is write-only');
  t.same(made.json.result.authentication, { scheme: 'Bearer', credentials: '********' });
  const id = made.json.result.id;
  t.type(id, 'string', 'the server names a config given without id');
  const got = await call('GetTaskPushNotificationConfig', { taskId, id });
  t.same(got.json.result, made.json.result);
  await call('CreateTaskPushNotificationConfig', { taskId, id: 'second', url: hook });
  const list = await call('ListTaskPushNotificationConfigs', { taskId });
  t.same(
    list.json.result.configs.map((c: { id: string }) => c.id),
    [id, 'second'],
  );
  const del = await call('DeleteTaskPushNotificationConfig', { taskId, id });
  t.notOk(del.json.error);
  const gone = await call('GetTaskPushNotificationConfig', { taskId, id });
  t.equal(gone.json.error.code, -32602);
  t.equal(gone.json.error.data[0].metadata.path, 'params.id');
  const refused = await call('CreateTaskPushNotificationConfig', { taskId, url: 'http://10.0.0.1/x' });
  t.equal(refused.json.error.code, -32602, 'the SSRF guard applies');
  t.equal(refused.json.error.data[0].metadata.path, 'params.url');
});

t.test('GetExtendedAgentCard, A2A-Version, scopes and auth in 1.0 error shapes', async (t) => {
  const card = await call('GetExtendedAgentCard', {});
  t.type(card.json.result.name, 'string');
  const v2 = await call('GetTask', { id: 'x' }, { headers: { 'A2A-Version': '2.0' } });
  t.equal(v2.json.error.code, -32009, 'an unsupported version: VersionNotSupported');
  t.equal(v2.json.error.data[0].reason, 'VERSION_NOT_SUPPORTED');
  const reader = (await gw.key({ workspace: 'ws-v1', trust: 'read_only' })).key;
  const denied = await call('SendMessage', text('x'), { key: reader });
  t.equal(denied.status, 403);
  t.equal(denied.json.error.code, -32051, 'scope insufficient, outside 1.0 codes');
  t.equal(denied.json.error.data[0].metadata.required, 'tasks.create');
  const noKey = await gw.rpc({ method: 'GetTask', params: { id: 'x' }, headers: V1 });
  t.equal(noKey.status, 401);
  t.equal(noKey.json.error.code, -32050);
  const unknown = await call('NoSuchMethod', {});
  t.equal(unknown.json.error.code, -32601);
  t.ok(Array.isArray(unknown.json.error.data), 'a 1.0 header: 1.0 error shape');
  const parse = await gw.rpc({ body: '{', key, headers: V1 });
  t.equal(parse.json.error.code, -32700);
  t.ok(Array.isArray(parse.json.error.data));
});

t.test('SendStreamingMessage: {task} first, then statusUpdate / artifactUpdate with our ids; SubscribeToTask replays', async (t) => {
  const s = await openSse({ url: gw.url, key, method: 'SendStreamingMessage', params: slow(150, { steps: 3 }), id: 'rq-1', headers: V1 });
  t.equal(s.status, 200);
  const frames = (await s.all()).filter((f) => f.data);
  const r = results(frames);
  t.ok(
    frames.every((f) => f.data.id === 'rq-1' && f.data.jsonrpc === '2.0'),
    'each event a JSON-RPC response with the request id',
  );
  const id = r[0].task.id;
  t.ok(r[0].task, 'first event: {task}');
  const rest = r.slice(1);
  t.ok(
    rest.every((e) => (e.statusUpdate ?? e.artifactUpdate)?.taskId === id),
    'then statusUpdate / artifactUpdate naming our task id',
  );
  t.ok(
    rest.some((e) => e.artifactUpdate),
    'artifact updates stream',
  );
  t.equal(rest[rest.length - 1].statusUpdate.status.state, 'TASK_STATE_COMPLETED', 'the last event is the terminal status');
  t.notOk(/"kind"|"final"/.test(JSON.stringify(r)), 'no kind, no final');
  const ids = frames.map((f) => Number(f.id));
  t.ok(
    ids.every((x, i) => i === 0 || x > ids[i - 1]!),
    'event ids increase',
  );

  const after = ids[1]!;
  const re = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id }, headers: { ...V1, 'Last-Event-ID': String(after) } });
  const replayed = (await re.all()).filter((f) => f.data);
  t.same(
    replayed.map((f) => Number(f.id)),
    ids.filter((x) => x > after),
    'exactly the events after Last-Event-ID',
  );
  t.same(results(replayed), r.slice(2), 'with the same content');

  const fresh = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id }, headers: V1 });
  const now = (await fresh.all()).filter((f) => f.data);
  t.equal(now.length, 1, 'without Last-Event-ID: one answer, and the stream ends');
  t.equal(now[0]!.data.error.code, -32004, 'a terminal task: UnsupportedOperationError (see v1-follow-ups.test.ts)');

  const missing = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: 'nope' }, headers: V1 });
  const err = (await missing.all()).find((f) => f.data?.error) ?? { data: missing.json };
  t.equal(err.data.error.code, -32001, 'an unknown task: TaskNotFound, in 1.0 shape');
  t.ok(Array.isArray(err.data.error.data));
});

t.test('SSE pings on an idle 1.0 stream (injected clock)', async (t) => {
  const clock = new ManualClock(Date.now());
  const g = await startTestGateway({ clock, timers: clock, config: { streaming: { pingIntervalMs: 15_000 } } });
  t.teardown(() => g.close());
  const { key: k } = await g.key();
  const s = await openSse({ url: g.url, key: k, method: 'SendStreamingMessage', params: slow(60_000), headers: V1 });
  t.equal((await s.next())?.comment, 'stream open');
  const first = await s.next();
  t.ok(first?.data.result.task, 'the task first');
  clock.advance(15_000);
  t.equal((await s.next())?.comment, 'ping', 'a ping after 15 s of silence');
  const c = await g.rpc({ key: k, method: 'CancelTask', params: { id: first!.data.result.task.id }, headers: V1 });
  t.equal(c.json.result.status.state, 'TASK_STATE_CANCELED');
  const rest = results((await s.all()).filter((f) => f.data));
  t.equal(rest[rest.length - 1].statusUpdate.status.state, 'TASK_STATE_CANCELED', 'the stream ends with the canceled status');
});

t.test('webhooks of a 1.0 task: a StreamResponse ({task}) in 1.0 shapes, no internal field', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const r = await call('SendMessage', {
    message: msg([{ text: 'pushed' }], { metadata: { agentId: 'echo' } }),
    configuration: { taskPushNotificationConfig: { url: `${rx.url}` } },
  });
  t.equal(r.json.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(r.json));
  await until(() => rx.deliveries.some((d) => d.json?.task?.status?.state === 'TASK_STATE_COMPLETED'), 'the completed task delivered');
  const done = rx.deliveries.find((d) => d.json?.task?.status?.state === 'TASK_STATE_COMPLETED');
  t.ok(done, 'the completed task was delivered');
  t.equal(done?.json.task.id, r.json.result.task.id);
  t.same(done?.json.task.artifacts[0].parts, [{ text: 'pushed' }]);
  for (const f of INTERNAL) t.notOk(done?.body.includes(f), `${f} is not delivered`);
});
