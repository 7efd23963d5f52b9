// Isolation over real HTTP: workspaces, agent allowlists, client-chosen ids per workspace,
// and the sanitizer at depth (no internal field in any response body, at any depth).
import t, { type Test } from 'tap';
import { INTERNAL_FIELDS } from '../../src/protocol/internal-fields.js';
import { msgA, msgB, startTestGateway, type RpcResult, type TestGateway } from '../support/gateway.js';

/** Every path in `v` whose key is an internal field. */
function internalPaths(v: unknown, path = '$'): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => internalPaths(x, `${path}[${i}]`));
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [...(INTERNAL_FIELDS.has(k) ? [`${path}.${k}`] : []), ...internalPaths(x, `${path}.${k}`)]);
}

/** `v` without internal fields, by the test's own walk (what the sanitizer should leave of user data). */
function withoutInternal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutInternal);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !INTERNAL_FIELDS.has(k))
      .map(([k, x]) => [k, withoutInternal(x)]),
  );
}

function noInternal(t: Test, r: RpcResult, label: string) {
  t.same(internalPaths(r.json), [], `${label}: no internal field anywhere`);
  t.notMatch(JSON.stringify(r.json), /LEAK-/, `${label}: no internal value anywhere`);
}

/** Whether two not-found answers are the same once their ids are blanked: nothing tells them apart. */
function sameNotFound(t: Test, a: RpcResult, aId: string, b: RpcResult, bId: string, label: string) {
  t.equal(a.json?.error?.code, -32001, `${label}: -32001`);
  t.equal(a.status, b.status, `${label}: same HTTP status as a random id`);
  const blank = (r: RpcResult, id: string) => JSON.stringify({ error: r.json?.error }).split(id).join('<id>');
  t.equal(blank(a, aId), blank(b, bId), `${label}: same error body as a random id`);
}

const hook = (n: string) => ({ url: `https://hooks.example.com/${n}` });

/** Every call that names a task, as [label, method, params(id)]. */
const TASK_CALLS: Array<[string, string, (id: string) => unknown]> = [
  ['tasks/get', 'tasks/get', (id) => ({ id })],
  ['tasks/cancel', 'tasks/cancel', (id) => ({ id })],
  ['follow-up (rev B)', 'message/send', (id) => msgB('follow', { taskId: id })],
  ['push set (rev A)', 'tasks/pushNotification/set', (id) => ({ id, pushNotificationConfig: hook('a') })],
  ['push set (rev B)', 'tasks/pushNotificationConfig/set', (id) => ({ taskId: id, pushNotificationConfig: hook('b') })],
  ['push get', 'tasks/pushNotification/get', (id) => ({ id })],
  ['push list', 'tasks/pushNotificationConfig/list', (id) => ({ taskId: id })],
  ['push delete', 'tasks/pushNotificationConfig/delete', (id) => ({ taskId: id, pushNotificationConfigId: 'cfg' })],
];

async function converseTask(tg: TestGateway, key: string, text: string) {
  const r = await tg.rpc({ method: 'message/send', key, params: msgB(text, { metadata: { agentId: 'converse' } }) });
  if (r.json?.result?.status?.state !== 'input-required') throw new Error(`converse did not wait for input: ${JSON.stringify(r.json)}`);
  return r.json.result as { id: string; contextId: string };
}

t.test("workspaces: another workspace's task is not found, indistinguishable from a random id", async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const ws1 = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const ws2 = await tg.key({ workspace: 'ws2', trust: 'admin' });
  const task = await converseTask(tg, ws1.key, 'ws1 private words');
  const set = await tg.rpc({
    method: 'tasks/pushNotificationConfig/set',
    key: ws1.key,
    params: { taskId: task.id, pushNotificationConfig: { id: 'cfg', ...hook('ws1') } },
  });
  t.ok(set.json.result, 'ws1 stored a push config on its task');

  for (const [label, method, params] of TASK_CALLS) {
    const random = `00000000-0000-4000-8000-${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`;
    const theirs = await tg.rpc({ method, key: ws2.key, params: params(task.id) });
    const none = await tg.rpc({ method, key: ws2.key, params: params(random) });
    sameNotFound(t, theirs, task.id, none, random, `ws2 ${label}`);
    t.notMatch(JSON.stringify(theirs.json), 'ws1 private words', `ws2 ${label}: nothing of the task leaks`);
  }

  // ws1's task is untouched by all of that: still waiting, one push config, and it can be finished by its owner
  const mine = await tg.rpc({ method: 'tasks/get', key: ws1.key, params: { id: task.id } });
  t.equal(mine.json.result.status.state, 'input-required', 'the cancel from ws2 did not cancel it');
  t.equal(mine.json.result.history.filter((m: { role: string }) => m.role === 'user').length, 1, 'the follow-up from ws2 did not reach it');
  const cfgs = await tg.rpc({ method: 'tasks/pushNotificationConfig/list', key: ws1.key, params: { taskId: task.id } });
  t.same(
    cfgs.json.result.map((c: { pushNotificationConfig: { url: string } }) => c.pushNotificationConfig.url),
    ['https://hooks.example.com/ws1'],
    'ws2 added no push config',
  );
  const done = await tg.rpc({ method: 'message/send', key: ws1.key, params: msgB('done', { taskId: task.id }) });
  t.equal(done.json.result.status.state, 'completed', 'the owner continues it');

  // a rev A send naming ws1's id from ws2 does not continue ws1's task: it makes ws2's own task under that id
  const a = await tg.rpc({ method: 'tasks/send', key: ws2.key, params: msgA('ws2 words', { id: task.id }) });
  t.equal(a.json.result?.id, task.id);
  t.notMatch(JSON.stringify(a.json), 'ws1 private words', "ws2 sees nothing of ws1's history");
  t.equal(a.json.result.history.length, 1, "a fresh task with only ws2's message");
  const still = await tg.rpc({ method: 'tasks/get', key: ws1.key, params: { id: task.id } });
  t.equal(still.json.result.status.state, 'completed');
  t.notMatch(JSON.stringify(still.json), 'ws2 words', "ws1's task did not get ws2's message");
});

t.test('agent allowlist: agents outside it are -32005 to send to and -32001 to reach', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const wide = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const echoOnly = await tg.key({ workspace: 'ws1', trust: 'admin', agents: ['echo'] });

  const viaMeta = await tg.rpc({ method: 'message/send', key: echoOnly.key, params: msgB('hi', { metadata: { agentId: 'converse' } }) });
  t.equal(viaMeta.json.error?.code, -32005, 'message/send to converse: -32005');
  const viaParams = await tg.rpc({ method: 'tasks/send', key: echoOnly.key, params: msgA('hi', { metadata: { agentId: 'converse' } }) });
  t.equal(viaParams.json.error?.code, -32005, 'tasks/send to converse: -32005');
  const viaSkill = await tg.rpc({ method: 'message/send', key: echoOnly.key, params: msgB('hi', { metadata: { skillId: 'converse' } }) });
  t.equal(viaSkill.json.error?.code, -32005, 'by skill: -32005');
  const viaUrl = await tg.rpc({ method: 'message/send', key: echoOnly.key, params: msgB('hi'), path: '/api/a2a/agents/converse' });
  t.equal(viaUrl.json.error?.code, -32005, 'by the agent URL: -32005');
  const echo = await tg.rpc({ method: 'message/send', key: echoOnly.key, params: msgB('hi') });
  t.equal(echo.json.result?.status?.state, 'completed', 'its own agent works');

  const theirs = await converseTask(tg, wide.key, 'converse private words');
  const fresh = await tg.rpc({ method: 'message/send', key: wide.key, params: msgB('echoed') });
  for (const [label, method, params] of [...TASK_CALLS, ['follow-up (rev A)', 'tasks/send', (id: string) => msgA('follow', { id })] as const]) {
    const random = `r-${Math.random().toString(36).slice(2)}`;
    const r = await tg.rpc({ method, key: echoOnly.key, params: params(theirs.id) });
    if (method === 'tasks/send') {
      // rev A: the id exists in this workspace, so it is a follow-up, and the task is out of reach
      t.equal(r.json.error?.code, -32001, `${label}: -32001`);
      continue;
    }
    const none = await tg.rpc({ method, key: echoOnly.key, params: params(random) });
    sameNotFound(t, r, theirs.id, none, random, `echo-only ${label} on a converse task`);
    t.notMatch(JSON.stringify(r.json), 'converse private words', `${label}: nothing leaks`);
  }
  const ok = await tg.rpc({ method: 'tasks/get', key: echoOnly.key, params: { id: fresh.json.result.id } });
  t.equal(ok.json.result?.status?.state, 'completed', 'an echo task of the same workspace made by another key is visible');
  const wrongUrl = await tg.rpc({ method: 'tasks/get', key: wide.key, params: { id: fresh.json.result.id }, path: '/api/a2a/agents/converse' });
  t.equal(wrongUrl.json.error?.code, -32001, "an echo task asked for under another agent's URL is not found");
  const mine = await tg.rpc({ method: 'tasks/get', key: wide.key, params: { id: theirs.id } });
  t.equal(mine.json.result.status.state, 'input-required', 'the converse task was not canceled by the echo-only key');
});

t.test('two workspaces use the rev A client-chosen id "same-id" independently', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const ws1 = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const ws2 = await tg.key({ workspace: 'ws2', trust: 'admin' });
  const send = (key: string, text: string) => tg.rpc({ method: 'tasks/send', key, params: msgA(text, { id: 'same-id', metadata: { agentId: 'converse' } }) });

  const a1 = await send(ws1.key, 'alpha');
  const b1 = await send(ws2.key, 'beta');
  t.equal(a1.json.result.id, 'same-id');
  t.equal(b1.json.result.id, 'same-id');
  t.equal(a1.json.result.status.state, 'input-required');
  t.equal(b1.json.result.status.state, 'input-required', "ws2's send started its own task rather than continuing ws1's");
  t.not(a1.json.result.sessionId, b1.json.result.sessionId, 'separate sessions');

  const a2 = await send(ws1.key, 'done');
  const b2 = await send(ws2.key, 'gamma');
  t.equal(a2.json.result.status.state, 'completed', 'ws1 continued its own task');
  const summaryA = a2.json.result.artifacts[0].parts[1].data;
  t.same(summaryA, { turns: 2, texts: ['alpha', 'done'] }, "ws1's task holds only ws1's turns");
  t.equal(b2.json.result.status.state, 'input-required', "ws2's task is still going (its turn 2)");
  const b3 = await send(ws2.key, 'done');
  t.same(b3.json.result.artifacts[0].parts[1].data, { turns: 3, texts: ['beta', 'gamma', 'done'] }, "ws2's task holds only ws2's turns");

  const g1 = await tg.rpc({ method: 'tasks/get', key: ws1.key, params: { id: 'same-id' } });
  const g2 = await tg.rpc({ method: 'tasks/get', key: ws2.key, params: { id: 'same-id' } });
  t.equal(g1.json.result.history.filter((m: { role: string }) => m.role === 'user').length, 2);
  t.equal(g2.json.result.history.filter((m: { role: string }) => m.role === 'user').length, 3);
  t.notMatch(JSON.stringify(g1.json), /beta|gamma/);
  t.notMatch(JSON.stringify(g2.json), /alpha/);
  const stored1 = await tg.gw.store.tasks.get('ws1', 'same-id');
  const stored2 = await tg.gw.store.tasks.get('ws2', 'same-id');
  t.equal(stored1?.workspaceId, 'ws1', 'both are stored, each under its workspace');
  t.equal(stored2?.workspaceId, 'ws2');
});

t.test("a key stored with a '/' in its workspace (before such ids were refused) reads nothing of a workspace its id starts", async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const ws1 = await tg.key({ workspace: 'ws1', trust: 'admin' });
  // written past the key admin, which refuses such a workspace now, as an older version stored it
  const made = await tg.key({ workspace: 'tmp', trust: 'admin' });
  await tg.gw.store.keys.put({ ...(await tg.gw.store.keys.get(made.id))!, workspaceId: 'ws1/x' });
  const legacy = made.key;

  // store keys join workspace and id with '/': ws1's id 'x/mine' and ws1/x's id 'mine' are one store key
  const own = await tg.rpc({ method: 'tasks/send', key: ws1.key, params: msgA('ws1 private words', { id: 'x/mine', metadata: { agentId: 'converse' } }) });
  t.equal(own.json.result?.status?.state, 'input-required');
  const theirs = await tg.rpc({ method: 'tasks/send', key: legacy, params: msgA('legacy words', { id: 'theirs', metadata: { agentId: 'converse' } }) });
  t.equal(theirs.json.result?.status?.state, 'input-required');

  for (const [method, params] of [
    ['tasks/get', { id: 'mine' }],
    ['tasks/cancel', { id: 'mine' }],
    ['tasks/send', msgA('legacy follow-up', { id: 'mine' })],
  ] as const) {
    const r = await tg.rpc({ method, key: legacy, params });
    t.equal(r.json.error?.code, -32001, `the legacy key, ${method} of ws1's task: not found`);
    t.notMatch(JSON.stringify(r.json), 'ws1 private words', `${method}: nothing of ws1's task leaks`);
  }
  const back = await tg.rpc({ method: 'tasks/get', key: ws1.key, params: { id: 'x/theirs' } });
  t.equal(back.json.error?.code, -32001, "nor does ws1 read the legacy workspace's task");
  t.notMatch(JSON.stringify(back.json), 'legacy words');
  const mine = await tg.rpc({ method: 'tasks/get', key: ws1.key, params: { id: 'x/mine' } });
  t.equal(mine.json.result.status.state, 'input-required', "ws1's task was not canceled");
  t.equal(mine.json.result.history.filter((m: { role: string }) => m.role === 'user').length, 1, 'nor continued');
});

/** Every internal field with a recognizable value, `keep_me` beside it, nested `depth` levels further (objects and arrays). */
function poison(depth: number): Record<string, unknown> {
  const here: Record<string, unknown> = { keep_me: depth };
  for (const f of INTERNAL_FIELDS)
    here[f] = f === 'cost_breakdown' || f === 'model_config' ? { leak: `LEAK-${f}`, nested: { api_key_id: 'LEAK-nested' } } : `LEAK-${f}`;
  if (depth > 0) {
    here.child = poison(depth - 1);
    here.list = [{ items: [poison(depth - 1)] }];
  }
  return here;
}

t.test('sanitization at depth: no internal field in any response body', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const k = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const deep = poison(4);

  // rev A: task metadata, message metadata, data parts, part metadata
  const sentA = await tg.rpc({
    method: 'tasks/send',
    key: k.key,
    params: {
      metadata: { ...deep, agentId: 'echo' },
      message: {
        role: 'user',
        metadata: deep,
        parts: [
          { type: 'text', text: 'plain', metadata: deep },
          { type: 'data', data: deep, metadata: deep },
        ],
      },
    },
  });
  t.equal(sentA.json.result?.status?.state, 'completed', 'rev A send completed');
  noInternal(t, sentA, 'rev A send');
  const echoed = sentA.json.result.artifacts[0].parts[1].data;
  t.same(echoed, withoutInternal(deep), 'the echoed data keeps every harmless field, down to the deepest level');
  t.equal(echoed.child.child.child.child.keep_me, 0);
  t.equal(echoed.list[0].items[0].list[0].items[0].child.keep_me, 1);
  t.equal(sentA.json.result.metadata.agentId, 'echo', 'harmless task metadata is kept');
  t.equal(sentA.json.result.metadata.child.child.keep_me, 2);

  // rev B, with an inline push config
  const sentB = await tg.rpc({
    method: 'message/send',
    key: k.key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'mb-1', metadata: deep, parts: [{ kind: 'data', data: deep }] },
      metadata: deep,
      configuration: { pushNotificationConfig: { url: 'https://hooks.example.com/b', token: 'tok' } },
    },
  });
  t.equal(sentB.json.result?.status?.state, 'completed', 'rev B send completed');
  noInternal(t, sentB, 'rev B send');

  const idA: string = sentA.json.result.id;
  const idB: string = sentB.json.result.id;
  for (const [label, r] of [
    ['get A', await tg.rpc({ method: 'tasks/get', key: k.key, params: { id: idA } })],
    ['get A as rev B', await tg.rpc({ method: 'tasks/get', key: k.key, params: { id: idA }, headers: { 'A2A-Version': '0.3.0' } })],
    ['get B', await tg.rpc({ method: 'tasks/get', key: k.key, params: { id: idB } })],
    [
      'push set',
      await tg.rpc({
        method: 'tasks/pushNotification/set',
        key: k.key,
        params: {
          id: idA,
          pushNotificationConfig: { url: 'https://hooks.example.com/a', token: 't', authentication: { schemes: ['bearer'], credentials: 'c' } },
        },
      }),
    ],
    ['push get', await tg.rpc({ method: 'tasks/pushNotification/get', key: k.key, params: { id: idA } })],
    ['push list', await tg.rpc({ method: 'tasks/pushNotificationConfig/list', key: k.key, params: { taskId: idB } })],
    ['cancel of a completed task (error)', await tg.rpc({ method: 'tasks/cancel', key: k.key, params: { id: idA } })],
  ] as const) {
    t.ok(r.json?.result !== undefined || r.json?.error !== undefined, `${label}: answered`);
    noInternal(t, r, label);
  }

  // cancel of a running (waiting) task returns the whole task
  const waiting = await tg.rpc({
    method: 'message/send',
    key: k.key,
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'mc-1',
        metadata: deep,
        parts: [
          { kind: 'data', data: deep },
          { kind: 'text', text: 'x' },
        ],
      },
      metadata: { ...deep, agentId: 'converse' },
    },
  });
  t.equal(waiting.json.result?.status?.state, 'input-required');
  noInternal(t, waiting, 'converse send');
  const canceled = await tg.rpc({ method: 'tasks/cancel', key: k.key, params: { id: waiting.json.result.id } });
  t.equal(canceled.json.result?.status?.state, 'canceled', 'canceled');
  t.same(canceled.json.result.history[0].parts[0].data, withoutInternal(deep), 'the canceled task shows its history, harmless fields intact');
  noInternal(t, canceled, 'cancel');

  // a batch passes the same exit
  const batch = await tg.rpc({
    key: k.key,
    body: JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: idA } },
      { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: idB } },
    ]),
  });
  t.equal(batch.json.length, 2);
  noInternal(t, batch, 'batch');

  // the runtime's own internal fields are in the store, never in a response
  for (const id of [idA, idB]) {
    const stored = await tg.gw.store.tasks.get('ws1', id);
    t.equal(stored?.metadata.internal_task_id, `ws1/${id}`, 'internal_task_id is stored');
    t.equal(stored?.metadata.workspace_id, 'ws1', 'workspace_id is stored');
    t.equal(stored?.metadata.api_key_id, k.id, 'api_key_id is stored');
  }
  const got = await tg.rpc({ method: 'tasks/get', key: k.key, params: { id: idA } });
  const text = JSON.stringify(got.json);
  t.notMatch(text, k.id, 'the key id appears nowhere in a response');
  t.notMatch(text, `ws1/${idA}`, 'the internal task id appears nowhere');
});
