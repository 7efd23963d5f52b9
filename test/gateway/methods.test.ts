// Every JSON-RPC method of both dialects, over real HTTP against the real server (LMDB in a temp dir, demo agents).
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitForState } from '../support/tasks.js';

const INTERNAL = ['workspace_id', 'api_key_id', 'internal_task_id'];
const texts = (history: Array<{ parts: Array<{ text?: string }> }>) => history.map((m) => m.parts[0]?.text);
/** a slow-agent message that keeps the task working for `ms` unless canceled */
const slowB = (ms: number, extra: Record<string, unknown> = {}) => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: `m-slow-${ms}-${Math.random()}`,
    parts: [{ kind: 'data', data: { ms, steps: 1 } }],
    metadata: { agentId: 'slow' },
  },
  ...extra,
});
const slowA = (id: string, ms: number) => ({ id, message: { role: 'user', parts: [{ type: 'data', data: { ms, steps: 1 } }] }, metadata: { agentId: 'slow' } });

let gw: TestGateway;
let key: string;

t.before(async () => {
  // the push configs below point at 127.0.0.1, which the SSRF guard refuses unless the allowlist admits it
  gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  key = (await gw.key()).key;
});
t.teardown(() => gw.close());

t.test('tasks/send (rev A)', async (t) => {
  t.test('creates the task under the client-chosen id and answers in 0.1 shapes', async (t) => {
    const r = await gw.rpc({ method: 'tasks/send', key, id: 'call-1', params: msgA('hello A', { id: 'a-echo-1', sessionId: 'sess-1' }) });
    t.equal(r.status, 200);
    t.equal(r.json.jsonrpc, '2.0');
    t.equal(r.json.id, 'call-1', 'the response carries the request id');
    const task = r.json.result;
    t.equal(task.id, 'a-echo-1', 'the client-chosen id');
    t.equal(task.sessionId, 'sess-1', 'the session id is kept');
    t.notOk('kind' in task, 'rev A tasks carry no kind');
    t.notOk('contextId' in task, 'rev A tasks say sessionId, not contextId');
    t.equal(task.status.state, 'completed');
    t.type(task.status.timestamp, 'string');
    t.equal(task.artifacts.length, 1);
    const art = task.artifacts[0];
    t.equal(art.index, 0, 'artifacts carry index');
    t.notOk('artifactId' in art, 'rev A artifacts carry no artifactId');
    t.same(art.parts, [{ type: 'text', text: 'hello A' }], 'parts carry type, not kind');
    t.same(task.history[0], { role: 'user', parts: [{ type: 'text', text: 'hello A' }] });
    for (const f of INTERNAL) t.notOk(f in task.metadata, `${f} is not shown`);
  });

  t.test('all three part types round-trip', async (t) => {
    const parts = [
      { type: 'text', text: 'see attached' },
      { type: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('file body').toString('base64') } },
      { type: 'data', data: { n: 1, nested: { ok: true } } },
    ];
    const r = await gw.rpc({ method: 'tasks/send', key, params: { id: 'a-parts', message: { role: 'user', parts } } });
    t.equal(r.json.result.status.state, 'completed');
    t.same(r.json.result.artifacts[0].parts, parts);
  });

  t.test('without params.id the server picks an id that tasks/get finds', async (t) => {
    const r = await gw.rpc({ method: 'tasks/send', key, params: msgA('no id') });
    const id = r.json.result.id;
    t.type(id, 'string');
    t.ok(id.length > 0);
    t.type(r.json.result.sessionId, 'string', 'a session id is made up when none was sent');
    const g = await gw.rpc({ method: 'tasks/get', key, params: { id } });
    t.equal(g.json.result.id, id);
    t.equal(g.json.result.status.state, 'completed');
  });
});

t.test('message/send (rev B)', async (t) => {
  t.test('creates a task with a server id and answers in 0.3 shapes', async (t) => {
    const params = msgB('hello B');
    const r = await gw.rpc({ method: 'message/send', key, params });
    t.equal(r.status, 200);
    const task = r.json.result;
    t.equal(task.kind, 'task');
    t.type(task.id, 'string');
    t.type(task.contextId, 'string');
    t.notOk('sessionId' in task, 'rev B tasks say contextId');
    t.equal(task.status.state, 'completed');
    const art = task.artifacts[0];
    t.type(art.artifactId, 'string', 'artifacts carry artifactId');
    t.notOk('index' in art, 'rev B artifacts carry no index');
    t.same(art.parts, [{ kind: 'text', text: 'hello B' }]);
    const m = task.history[0];
    t.equal(m.kind, 'message');
    t.equal(m.messageId, params.message.messageId, "the caller's messageId is kept");
    t.equal(m.taskId, task.id);
    t.equal(m.contextId, task.contextId);
    for (const f of INTERNAL) t.notOk(f in task.metadata, `${f} is not shown`);
  });

  t.test("a contextId sent in the message becomes the task's", async (t) => {
    const r = await gw.rpc({ method: 'message/send', key, params: msgB('ctx', { contextId: 'ctx-42' }) });
    t.equal(r.json.result.contextId, 'ctx-42');
  });

  t.test('configuration.historyLength shapes the answer', async (t) => {
    const r = await gw.rpc({ method: 'message/send', key, params: { ...msgB('short'), configuration: { historyLength: 0 } } });
    t.equal(r.json.result.status.state, 'completed');
    t.same(r.json.result.history ?? [], [], 'no history with historyLength 0');
    t.equal(r.json.result.artifacts.length, 1, 'artifacts are still shown');
  });

  t.test('configuration.blocking:false returns at once with submitted or working', async (t) => {
    const started = Date.now();
    const r = await gw.rpc({ method: 'message/send', key, params: slowB(30_000, { configuration: { blocking: false } }) });
    t.ok(Date.now() - started < 10_000, 'answered long before the 30 s of work');
    t.ok(['submitted', 'working'].includes(r.json.result.status.state), `state ${r.json.result.status.state}`);
    const got = await gw.rpc({ method: 'tasks/get', key, params: { id: r.json.result.id } });
    t.ok(['submitted', 'working'].includes(got.json.result.status.state), 'still running when read back');
    const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: r.json.result.id } });
    t.equal(c.json.result.status.state, 'canceled');
  });
});

t.test('multi-turn with converse', async (t) => {
  t.test('rev A: input-required, follow-up by params.id, done -> completed', async (t) => {
    const first = await gw.rpc({ method: 'tasks/send', key, params: msgA('first point', { id: 'a-conv', metadata: { agentId: 'converse' } }) });
    t.equal(first.json.result.status.state, 'input-required');
    t.match(first.json.result.status.message.parts[0].text, /Turn 1/, 'the agent asks for more');
    t.equal(first.json.result.status.message.role, 'agent');

    const second = await gw.rpc({ method: 'tasks/send', key, params: msgA('second point', { id: 'a-conv' }) });
    t.equal(second.json.result.id, 'a-conv');
    t.equal(second.json.result.status.state, 'input-required');
    t.equal(second.json.result.sessionId, first.json.result.sessionId, 'same session');
    t.match(second.json.result.status.message.parts[0].text, /Turn 2/);

    const done = await gw.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'a-conv' }) });
    t.equal(done.json.result.status.state, 'completed');
    const summary = done.json.result.artifacts[0];
    t.equal(summary.name, 'summary');
    t.same(summary.parts[1], { type: 'data', data: { turns: 3, texts: ['first point', 'second point', 'done'] } });
    t.same(
      texts(done.json.result.history).filter((_, i) => i % 2 === 0),
      ['first point', 'second point', 'done'],
      'the user turns in order',
    );

    const after = await gw.rpc({ method: 'tasks/send', key, params: msgA('one more', { id: 'a-conv' }) });
    t.equal(after.json.error.code, -32602, 'a follow-up to a completed task is refused');
    t.match(after.json.error.message, /completed/);
    t.match(after.json.error.message, /no more messages/);
    t.equal(after.json.error.data.reason, 'INVALID_PARAMS');
    const g = await gw.rpc({ method: 'tasks/get', key, params: { id: 'a-conv' } });
    t.equal(g.json.result.history.length, 5, 'the refused message was not added');
  });

  t.test('rev B: follow-up by message.taskId', async (t) => {
    const first = await gw.rpc({ method: 'message/send', key, params: msgB('alpha', { metadata: { agentId: 'converse' } }) });
    const task = first.json.result;
    t.equal(task.status.state, 'input-required');
    t.equal(task.status.message.kind, 'message');
    const done = await gw.rpc({ method: 'message/send', key, params: msgB('done', { taskId: task.id, contextId: task.contextId }) });
    t.equal(done.json.result.id, task.id, 'the same task continued');
    t.equal(done.json.result.status.state, 'completed');
    t.same(done.json.result.artifacts[0].parts[1].data, { turns: 2, texts: ['alpha', 'done'] });
    t.type(done.json.result.artifacts[0].artifactId, 'string');

    const after = await gw.rpc({ method: 'message/send', key, params: msgB('late', { taskId: task.id }) });
    t.equal(after.json.error.code, -32602);
    t.match(after.json.error.message, /completed/);
  });

  t.test('a message to a task that is still working is refused', async (t) => {
    const r = await gw.rpc({ method: 'message/send', key, params: slowB(30_000, { configuration: { blocking: false } }) });
    const id = r.json.result.id;
    const again = await gw.rpc({ method: 'message/send', key, params: msgB('hurry', { taskId: id }) });
    t.equal(again.json.error.code, -32602);
    t.match(again.json.error.message, /input-required/);
    await gw.rpc({ method: 'tasks/cancel', key, params: { id } });
  });
});

t.test('tasks/get', async (t) => {
  // a rev A converse task with history: user, agent, user, agent
  await gw.rpc({ method: 'tasks/send', key, params: msgA('u1', { id: 'hist', metadata: { agentId: 'converse' } }) });
  await gw.rpc({ method: 'tasks/send', key, params: msgA('u2', { id: 'hist' }) });
  const get = (params: Record<string, unknown>, headers?: Record<string, string>) =>
    gw.rpc({ method: 'tasks/get', key, params: { id: 'hist', ...params }, headers });

  t.test('historyLength: absent = whole, 0 = none, n = last n', async (t) => {
    const whole = await get({});
    t.equal(whole.json.result.status.state, 'input-required');
    t.same(texts(whole.json.result.history), [
      'u1',
      'Turn 1: got "u1". Send more, or "done" to finish.',
      'u2',
      'Turn 2: got "u2". Send more, or "done" to finish.',
    ]);
    t.same((await get({ historyLength: 0 })).json.result.history ?? [], []);
    t.same(texts((await get({ historyLength: 1 })).json.result.history), ['Turn 2: got "u2". Send more, or "done" to finish.']);
    t.same(texts((await get({ historyLength: 2 })).json.result.history), ['u2', 'Turn 2: got "u2". Send more, or "done" to finish.']);
    t.equal((await get({ historyLength: 99 })).json.result.history.length, 4, 'more than there is: all of it');
  });

  t.test("answers in the task's dialect without a header", async (t) => {
    const a = await get({});
    t.type(a.json.result.sessionId, 'string');
    t.notOk('kind' in a.json.result);
    t.equal(a.json.result.history[0].parts[0].type, 'text');
    const b = await gw.rpc({ method: 'message/send', key, params: msgB('bee') });
    const gb = await gw.rpc({ method: 'tasks/get', key, params: { id: b.json.result.id } });
    t.equal(gb.json.result.kind, 'task');
    t.equal(gb.json.result.artifacts[0].parts[0].kind, 'text');
  });

  t.test('answers in the dialect of the A2A-Version header', async (t) => {
    const asB = await get({}, { 'A2A-Version': '0.3' });
    t.equal(asB.json.result.kind, 'task', 'A2A-Version 0.3 gives rev B');
    t.type(asB.json.result.contextId, 'string');
    t.notOk('sessionId' in asB.json.result);
    t.equal(asB.json.result.history[0].kind, 'message');
    t.equal(asB.json.result.history[0].parts[0].kind, 'text');

    const b = await gw.rpc({ method: 'message/send', key, params: msgB('bee') });
    const asA = await gw.rpc({ method: 'tasks/get', key, params: { id: b.json.result.id }, headers: { 'A2A-Version': '0.1' } });
    t.equal(asA.json.result.sessionId, b.json.result.contextId, 'A2A-Version 0.1 gives rev A');
    t.notOk('kind' in asA.json.result);
    t.equal(asA.json.result.artifacts[0].index, 0);
    t.same(asA.json.result.artifacts[0].parts, [{ type: 'text', text: 'bee' }]);

    const v1 = await gw.rpc({ method: 'tasks/get', key, params: { id: b.json.result.id }, headers: { 'A2A-Version': '1.0' } });
    t.equal(v1.json.result.kind, 'task', "1.0 names no 0.x dialect: a shared 0.x name answers in the task's dialect");

    const other = await gw.rpc({ method: 'tasks/get', key, params: { id: b.json.result.id }, headers: { 'A2A-Version': '9.9' } });
    t.equal(other.json.error.code, -32009, 'a version the gateway does not speak is 1.0 VersionNotSupported');
    t.equal(other.json.error.data[0].reason, 'VERSION_NOT_SUPPORTED', 'in 1.0 error shape');
    t.match(other.json.error.message, /9\.9/);
  });
});

t.test('tasks/cancel in every state', async (t) => {
  t.test("working (non-blocking rev B) -> canceled, answered in the task's dialect", async (t) => {
    const r = await gw.rpc({ method: 'message/send', key, params: slowB(30_000, { configuration: { blocking: false } }) });
    const id = r.json.result.id;
    t.ok(['submitted', 'working'].includes(r.json.result.status.state));
    const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id } });
    t.equal(c.status, 200);
    t.equal(c.json.result.kind, 'task');
    t.equal(c.json.result.id, id);
    t.equal(c.json.result.status.state, 'canceled');
    const g = await gw.rpc({ method: 'tasks/get', key, params: { id } });
    t.equal(g.json.result.status.state, 'canceled', 'stored as canceled');
  });

  t.test('working, while a blocking tasks/send waits: the waiting send answers canceled', async (t) => {
    const pending = gw.rpc({ method: 'tasks/send', key, params: slowA('a-slow-blocking', 30_000) });
    await waitForState(gw, { key, id: 'a-slow-blocking', states: ['working'] });
    const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'a-slow-blocking' } });
    t.equal(c.json.result.status.state, 'canceled');
    t.type(c.json.result.sessionId, 'string', 'a rev A task is answered in rev A');
    t.notOk('kind' in c.json.result);
    const sent = await pending;
    t.equal(sent.json.result.id, 'a-slow-blocking');
    t.equal(sent.json.result.status.state, 'canceled', 'the blocked send returns with the canceled task');
  });

  t.test('input-required -> canceled; the task then takes no message', async (t) => {
    const r = await gw.rpc({ method: 'tasks/send', key, params: msgA('hi', { id: 'a-conv-cancel', metadata: { agentId: 'converse' } }) });
    t.equal(r.json.result.status.state, 'input-required');
    const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'a-conv-cancel' } });
    t.equal(c.json.result.status.state, 'canceled');
    const more = await gw.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'a-conv-cancel' }) });
    t.equal(more.json.error.code, -32602);
    t.match(more.json.error.message, /canceled/);
  });

  t.test('completed, canceled -> -32002', async (t) => {
    await gw.rpc({ method: 'tasks/send', key, params: msgA('finish', { id: 'a-done' }) });
    const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'a-done' } });
    t.equal(c.status, 200);
    t.equal(c.json.error.code, -32002);
    t.equal(c.json.error.data.reason, 'TASK_NOT_CANCELABLE');
    t.match(c.json.error.message, /completed/);
    t.equal((await gw.rpc({ method: 'tasks/get', key, params: { id: 'a-done' } })).json.result.status.state, 'completed', 'still completed');

    await gw.rpc({ method: 'tasks/send', key, params: msgA('x', { id: 'a-twice', metadata: { agentId: 'converse' } }) });
    t.equal((await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'a-twice' } })).json.result.status.state, 'canceled');
    const again = await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'a-twice' } });
    t.equal(again.json.error.code, -32002, 'canceling twice is refused');
    t.match(again.json.error.message, /canceled/);
  });

  t.test('failed -> -32002', async (t) => {
    const fgw = await startTestGateway({
      config: {
        agents: [
          ...DEMO_AGENTS,
          { id: 'throws', name: 'Throws', kind: 'module', entry: fileURLToPath(new URL('../fixtures/agents/throws.js', import.meta.url)) },
        ],
      },
    });
    t.teardown(() => fgw.close());
    const k = (await fgw.key()).key;
    const r = await fgw.rpc({ method: 'tasks/send', key: k, params: msgA('go', { id: 'a-fails', metadata: { agentId: 'throws' } }) });
    t.equal(r.json.result.status.state, 'failed');
    const c = await fgw.rpc({ method: 'tasks/cancel', key: k, params: { id: 'a-fails' } });
    t.equal(c.json.error.code, -32002);
    t.match(c.json.error.message, /failed/);
    const more = await fgw.rpc({ method: 'tasks/send', key: k, params: msgA('again', { id: 'a-fails' }) });
    t.equal(more.json.error.code, -32602, 'a failed task takes no more messages');
  });
});

t.test('push notification configs', async (t) => {
  const hook = (n: string) => `http://127.0.0.1:9/hook-${n}`;

  t.test('rev A set/get: stored and returned in 0.1 shape', async (t) => {
    await gw.rpc({ method: 'tasks/send', key, params: msgA('x', { id: 'a-push' }) });
    const s = await gw.rpc({ method: 'tasks/pushNotification/set', key, params: { id: 'a-push', pushNotificationConfig: { url: hook('a'), token: 'tok-a' } } });
    t.equal(s.status, 200);
    t.same(s.json.result, { id: 'a-push', pushNotificationConfig: { url: hook('a'), token: '********' } });
    const g = await gw.rpc({ method: 'tasks/pushNotification/get', key, params: { id: 'a-push' } });
    t.same(g.json.result, { id: 'a-push', pushNotificationConfig: { url: hook('a'), token: '********' } });
    const stored = await gw.gw.store.pushConfigs.list('ws1/a-push');
    t.equal(stored.length, 1, 'one config in the store');
    t.equal(stored[0]!.url, hook('a'));
  });

  t.test('rev B set (several), get, list, delete', async (t) => {
    const b = await gw.rpc({ method: 'message/send', key, params: msgB('x') });
    const taskId = b.json.result.id;
    const s1 = await gw.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url: hook('1'), token: 't1' } } });
    t.equal(s1.json.result.taskId, taskId);
    const id1 = s1.json.result.pushNotificationConfig.id;
    t.type(id1, 'string', 'the server names a config given without id');
    t.same(s1.json.result.pushNotificationConfig, { id: id1, url: hook('1'), token: '********' });
    const s2 = await gw.rpc({
      method: 'tasks/pushNotificationConfig/set',
      key,
      params: { taskId, pushNotificationConfig: { id: 'mine', url: hook('2'), authentication: { schemes: ['Bearer'], credentials: 'c' } } },
    });
    t.same(s2.json.result, {
      taskId,
      pushNotificationConfig: { id: 'mine', url: hook('2'), authentication: { schemes: ['Bearer'], credentials: '********' } },
    });

    const list = await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: taskId } });
    t.same(list.json.result.map((c: { pushNotificationConfig: { id: string } }) => c.pushNotificationConfig.id).sort(), [id1, 'mine'].sort(), 'both listed');
    t.ok(list.json.result.every((c: { taskId: string }) => c.taskId === taskId));

    const g1 = await gw.rpc({ method: 'tasks/pushNotificationConfig/get', key, params: { id: taskId, pushNotificationConfigId: id1 } });
    t.equal(g1.json.result.pushNotificationConfig.url, hook('1'));
    const g2 = await gw.rpc({ method: 'tasks/pushNotificationConfig/get', key, params: { id: taskId, pushNotificationConfigId: 'mine' } });
    t.equal(g2.json.result.pushNotificationConfig.url, hook('2'));

    const d = await gw.rpc({ method: 'tasks/pushNotificationConfig/delete', key, params: { id: taskId, pushNotificationConfigId: 'mine' } });
    t.equal(d.status, 200);
    t.equal(d.json.result, null);
    t.notOk('error' in d.json);
    const after = await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: taskId } });
    t.same(
      after.json.result.map((c: { pushNotificationConfig: { id: string } }) => c.pushNotificationConfig.id),
      [id1],
      'only the other one is left',
    );
    const gone = await gw.rpc({ method: 'tasks/pushNotificationConfig/get', key, params: { id: taskId, pushNotificationConfigId: 'mine' } });
    t.equal(gone.json.error.code, -32602, 'a deleted config is not found');
    t.equal(gone.json.error.data.path, 'params.pushNotificationConfigId');
    const again = await gw.rpc({ method: 'tasks/pushNotificationConfig/delete', key, params: { id: taskId, pushNotificationConfigId: 'mine' } });
    t.equal(again.json.error.code, -32602, 'deleting it again is refused');
    t.equal((await gw.gw.store.pushConfigs.list(`ws1/${taskId}`)).length, 1);
  });

  t.test('a config inline in message/send is stored with the task', async (t) => {
    const b = await gw.rpc({
      method: 'message/send',
      key,
      params: { ...msgB('x'), configuration: { pushNotificationConfig: { url: hook('inline'), token: 'ti' } } },
    });
    const list = await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { taskId: b.json.result.id } });
    t.equal(list.json.result.length, 1);
    t.equal(list.json.result[0].pushNotificationConfig.url, hook('inline'));
    t.equal(list.json.result[0].pushNotificationConfig.token, '********', 'write-only: set, never shown');
  });

  t.test('a set without url is refused and stores nothing', async (t) => {
    await gw.rpc({ method: 'tasks/send', key, params: msgA('x', { id: 'a-push-bad' }) });
    const s = await gw.rpc({ method: 'tasks/pushNotification/set', key, params: { id: 'a-push-bad', pushNotificationConfig: { token: 'x' } } });
    t.equal(s.json.error.code, -32602);
    t.equal(s.json.error.data.path, 'params.pushNotificationConfig.url');
    t.same(await gw.gw.store.pushConfigs.list('ws1/a-push-bad'), []);
  });

  t.test('scopes: read_only may read configs, not set them', async (t) => {
    const ro = (await gw.key({ trust: 'read_only' })).key;
    await gw.rpc({ method: 'tasks/send', key, params: msgA('x', { id: 'a-push-ro' }) });
    const set = await gw.rpc({ method: 'tasks/pushNotificationConfig/set', key: ro, params: { id: 'a-push-ro', pushNotificationConfig: { url: hook('ro') } } });
    t.equal(set.status, 403);
    t.equal(set.json.error.code, -32006);
    const list = await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key: ro, params: { id: 'a-push-ro' } });
    t.same(list.json.result, []);
    const del = await gw.rpc({ method: 'tasks/pushNotificationConfig/delete', key: ro, params: { id: 'a-push-ro', pushNotificationConfigId: 'x' } });
    t.equal(del.json.error.code, -32006, 'delete needs tasks.create');
  });
});

t.test('agent/getAuthenticatedExtendedCard', async (t) => {
  const r = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', key });
  t.equal(r.status, 200);
  const card = r.json.result;
  t.equal(card.name, 'a2a-gateway');
  t.equal(card.url, `${gw.url}/api/a2a`);
  t.type(card.version, 'string');
  t.same(card.authentication.schemes, ['bearer']);
  t.same(card.skills.map((s: { id: string }) => s.id).sort(), ['converse', 'echo', 'slow']);

  const narrow = (await gw.key({ trust: 'read_only', agents: ['converse'] })).key;
  const n = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: narrow });
  t.same(
    n.json.result.skills.map((s: { id: string }) => s.id),
    ['converse'],
    'only the agents the key may reach',
  );

  const noAgentsRead = (await gw.key({ trust: 'read_only', scopes: ['tasks.read'] })).key;
  const refused = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: noAgentsRead });
  t.equal(refused.status, 403);
  t.equal(refused.json.error.code, -32006);
  t.equal(refused.json.error.data.required, 'agents.read');
});

t.test('streaming methods: tasks.stream is checked first, then the stream opens', async (t) => {
  const autonomous = (await gw.key({ trust: 'autonomous' })).key;
  const cases: Array<[string, unknown]> = [
    ['tasks/sendSubscribe', msgA('s', { id: 'a-stream' })],
    ['message/sendStream', msgB('s', { metadata: { agentId: 'echo' } })],
    ['message/stream', msgB('s')],
    ['tasks/resubscribe', { id: 'a-echo-1' }],
  ];
  for (const [method, params] of cases) {
    const refused = await gw.rpc({ method, key: autonomous, params, id: `s-${method}` });
    t.equal(refused.status, 403, `${method}: without tasks.stream, 403`);
    t.match(refused.headers.get('content-type') ?? '', /application\/json/, `${method}: a JSON error, no stream`);
    t.equal(refused.json.id, `s-${method}`);
    t.equal(refused.json.error.code, -32006);
    t.equal(refused.json.error.data.required, 'tasks.stream');
  }
  t.equal((await gw.rpc({ method: 'tasks/get', key, params: { id: 'a-stream' } })).json.error.code, -32001, 'the refused sendSubscribe created no task');

  for (const [method, params] of cases) {
    const res = await fetch(`${gw.url}/api/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: `s-${method}`, method, params }),
    });
    t.equal(res.status, 200, `${method}: with tasks.stream, 200`);
    t.match(res.headers.get('content-type') ?? '', /text\/event-stream/, `${method}: an SSE stream`);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    t.ok(events.length > 0, `${method}: at least one event`);
    t.ok(
      events.every((e) => e.id === `s-${method}` && e.result !== undefined),
      `${method}: each event answers the request id`,
    );
  }
  t.equal((await gw.rpc({ method: 'tasks/get', key, params: { id: 'a-stream' } })).json.result.status.state, 'completed', 'tasks/sendSubscribe ran the task');
});

t.test('batches', async (t) => {
  t.test('every element is answered, in a JSON array with HTTP 200', async (t) => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 'b1', method: 'tasks/send', params: msgA('in a batch', { id: 'a-batch' }) },
      { jsonrpc: '2.0', id: 'b2', method: 'tasks/get', params: { id: 'no-such-task' } },
      { jsonrpc: '2.0', id: 'b3', method: 'no/such/method', params: {} },
      { jsonrpc: '1.0', id: 'b4', method: 'tasks/get', params: { id: 'x' } },
      { jsonrpc: '2.0', id: 'b5', method: 'message/send', params: msgB('second in batch') },
      42,
    ]);
    const r = await gw.rpc({ body, key });
    t.equal(r.status, 200);
    t.ok(Array.isArray(r.json));
    t.equal(r.json.length, 6);
    const byId = new Map<unknown, { result?: any; error?: any }>(r.json.map((e: { id: unknown }) => [e.id, e]));
    t.equal(byId.get('b1')?.result.status.state, 'completed');
    t.equal(byId.get('b1')?.result.id, 'a-batch');
    t.equal(byId.get('b2')?.error.code, -32001);
    t.equal(byId.get('b3')?.error.code, -32601);
    t.equal(byId.get('b4')?.error.code, -32600);
    t.equal(byId.get('b5')?.result.kind, 'task');
    t.equal(byId.get(null)?.error.code, -32600, 'a non-object element: -32600 with id null');
    for (const e of r.json) t.equal(e.jsonrpc, '2.0');
  });

  t.test('item 15: a request without id is answered too (A2A has no notifications): id null, HTTP 200', async (t) => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', method: 'tasks/send', params: msgA('quiet', { id: 'a-notified' }) },
      { jsonrpc: '2.0', id: 'n2', method: 'tasks/get', params: { id: 'no-such-task' } },
    ]);
    const r = await gw.rpc({ body, key });
    t.equal(r.json.length, 2, 'both calls are answered');
    t.equal(r.json[0].id, null);
    t.equal(r.json[0].result?.status?.state, 'completed', 'the call without id ran');
    t.equal(r.json[1].id, 'n2');

    const only = await gw.rpc({ body: JSON.stringify({ jsonrpc: '2.0', method: 'tasks/send', params: msgA('q', { id: 'a-notified-2' }) }), key });
    t.equal(only.status, 200);
    t.equal(only.json.id, null);
    t.equal(only.json.result?.status?.state, 'completed');
    const unknown = await gw.rpc({ body: JSON.stringify({ jsonrpc: '2.0', method: 'no/such/method', params: {} }), key });
    t.equal(unknown.status, 200);
    t.same(unknown.json, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32601, message: 'Method not found: no/such/method', data: { reason: 'METHOD_NOT_FOUND', method: 'no/such/method' } },
    });
    const bad = await gw.rpc({ body: JSON.stringify({ jsonrpc: '2.0', method: 'tasks/get', params: { id: 7 } }), key });
    t.equal(bad.json.id, null);
    t.equal(bad.json.error?.code, -32602, 'bad params without id: -32602');
  });
});
