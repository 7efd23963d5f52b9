// Every error code of the spec with its exact trigger, its HTTP status (protocol.md) and error.data.reason, over real HTTP.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { revokeKey } from '../../src/runtime/key-admin.js';
import { msgA, msgB, startTestGateway, type RpcResult, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let key: string;

t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key()).key;
  // a completed rev A task of workspace ws1, agent echo
  await gw.rpc({ method: 'tasks/send', key, params: msgA('seed', { id: 'seed-task' }) });
});
t.teardown(() => gw.close());

/** The body is a JSON-RPC error object with this code, reason and id; HTTP status as given. */
function isError(t: Test, r: RpcResult, o: { code: number; reason: string; status?: number; id?: unknown }) {
  t.equal(r.status, o.status ?? 200, `HTTP ${o.status ?? 200}`);
  t.match(r.headers.get('content-type') ?? '', /application\/json/);
  t.equal(r.json?.jsonrpc, '2.0');
  t.notOk(r.json && 'result' in r.json, 'no result');
  t.equal(r.json?.error?.code, o.code, `code ${o.code}`);
  t.type(r.json?.error?.message, 'string');
  t.equal(r.json?.error?.data?.reason, o.reason, `reason ${o.reason}`);
  if ('id' in o) t.equal(r.json?.id, o.id, `id ${JSON.stringify(o.id)}`);
}

t.test('-32700 PARSE_ERROR: the body is not JSON', async (t) => {
  for (const body of ['not json', '{"jsonrpc":"2.0","id":"p1","method":"tasks/get"', '', '{"a":1}}']) {
    const r = await gw.rpc({ body, key });
    isError(t, r, { code: -32700, reason: 'PARSE_ERROR', id: null });
  }
});

t.test('-32600 INVALID_REQUEST', async (t) => {
  const env = (o: Record<string, unknown>) => gw.rpc({ body: JSON.stringify(o), key });

  t.test('jsonrpc not "2.0": the id is echoed', async (t) => {
    isError(t, await env({ jsonrpc: '1.0', id: 'v1', method: 'tasks/get', params: { id: 'seed-task' } }), {
      code: -32600,
      reason: 'INVALID_REQUEST',
      id: 'v1',
    });
    const missing = await env({ id: 7, method: 'tasks/get', params: { id: 'seed-task' } });
    isError(t, missing, { code: -32600, reason: 'INVALID_REQUEST', id: 7 });
    t.equal(missing.json.error.data.field, 'jsonrpc');
    isError(t, await env({ jsonrpc: 2, id: 'v3', method: 'tasks/get', params: { id: 'seed-task' } }), { code: -32600, reason: 'INVALID_REQUEST', id: 'v3' });
  });

  t.test('method missing, empty or not a string', async (t) => {
    const r = await env({ jsonrpc: '2.0', id: 'm1', params: {} });
    isError(t, r, { code: -32600, reason: 'INVALID_REQUEST', id: 'm1' });
    t.equal(r.json.error.data.field, 'method');
    isError(t, await env({ jsonrpc: '2.0', id: 'm2', method: 42, params: {} }), { code: -32600, reason: 'INVALID_REQUEST', id: 'm2' });
    isError(t, await env({ jsonrpc: '2.0', id: 'm3', method: '', params: {} }), { code: -32600, reason: 'INVALID_REQUEST', id: 'm3' });
    isError(t, await env({ jsonrpc: '2.0', id: 'm4', method: ['tasks/get'], params: {} }), { code: -32600, reason: 'INVALID_REQUEST', id: 'm4' });
  });

  t.test('an object or array id: -32600 with id null', async (t) => {
    const r = await env({ jsonrpc: '2.0', id: { x: 1 }, method: 'tasks/get', params: { id: 'seed-task' } });
    isError(t, r, { code: -32600, reason: 'INVALID_REQUEST', id: null });
    t.equal(r.json.error.data.field, 'id');
    isError(t, await env({ jsonrpc: '2.0', id: ['a'], method: 'tasks/get', params: { id: 'seed-task' } }), {
      code: -32600,
      reason: 'INVALID_REQUEST',
      id: null,
    });
    isError(t, await env({ jsonrpc: '2.0', id: true, method: 'tasks/get', params: { id: 'seed-task' } }), {
      code: -32600,
      reason: 'INVALID_REQUEST',
      id: null,
    });
  });

  t.test('an empty batch, and a body that is JSON but no request object', async (t) => {
    isError(t, await gw.rpc({ body: '[]', key }), { code: -32600, reason: 'INVALID_REQUEST', id: null });
    isError(t, await gw.rpc({ body: '"tasks/get"', key }), { code: -32600, reason: 'INVALID_REQUEST', id: null });
    isError(t, await gw.rpc({ body: 'null', key }), { code: -32600, reason: 'INVALID_REQUEST', id: null });
    const batch = await gw.rpc({ body: '[1, "x"]', key });
    t.equal(batch.status, 200);
    t.same(
      batch.json.map((e: { id: unknown; error: { code: number } }) => [e.id, e.error.code]),
      [
        [null, -32600],
        [null, -32600],
      ],
      'each bad batch element answered',
    );
  });
});

t.test('-32601 METHOD_NOT_FOUND: unknown method, id echoed', async (t) => {
  const r = await gw.rpc({ method: 'tasks/explode', key, id: 'mnf-1', params: {} });
  isError(t, r, { code: -32601, reason: 'METHOD_NOT_FOUND', id: 'mnf-1' });
  t.match(r.json.error.message, /tasks\/explode/);
  t.equal(r.json.error.data.method, 'tasks/explode');
  isError(t, await gw.rpc({ method: 'SendMessages', key, id: 99, params: {} }), { code: -32601, reason: 'METHOD_NOT_FOUND', id: 99 });
});

t.test('-32602 INVALID_PARAMS, with error.data.path naming the failing path', async (t) => {
  const cases: Array<[string, string, unknown, string]> = [
    ['params missing', 'tasks/get', undefined, 'params'],
    ['params an array', 'tasks/get', ['seed-task'], 'params'],
    ['params a string', 'tasks/get', 'seed-task', 'params'],
    ['params null', 'message/send', null, 'params'],
    ['an empty key in params', 'tasks/get', { id: 'seed-task', '': 1 }, 'params.""'],
    ['message missing', 'message/send', { configuration: {} }, 'params.message'],
    ['parts empty', 'tasks/send', { id: 'x', message: { role: 'user', parts: [] } }, 'params.message.parts'],
    ['parts not a list', 'message/send', { message: { role: 'user', parts: { kind: 'text', text: 'x' } } }, 'params.message.parts'],
    ['parts missing', 'message/send', { message: { role: 'user' } }, 'params.message.parts'],
    [
      'a rev A part of unknown type',
      'tasks/send',
      {
        id: 'x',
        message: {
          role: 'user',
          parts: [
            { type: 'text', text: 'ok' },
            { type: 'image', url: 'u' },
          ],
        },
      },
      'params.message.parts.1.type',
    ],
    ['a rev B part of unknown kind', 'message/send', { message: { role: 'user', parts: [{ kind: 'video' }] } }, 'params.message.parts.0.kind'],
    ['a part with no type at all', 'message/send', { message: { role: 'user', parts: [{ text: 'x' }] } }, 'params.message.parts.0.kind'],
    ['role missing', 'tasks/send', { id: 'x', message: { parts: [{ type: 'text', text: 'x' }] } }, 'params.message.role'],
    ['role not user', 'message/send', { message: { role: 'agent', parts: [{ kind: 'text', text: 'x' }] } }, 'params.message.role'],
    ['role unknown', 'message/send', { message: { role: 'system', parts: [{ kind: 'text', text: 'x' }] } }, 'params.message.role'],
    ['negative historyLength on get', 'tasks/get', { id: 'seed-task', historyLength: -1 }, 'params.historyLength'],
    ['negative historyLength on send', 'message/send', { ...msgB('x'), configuration: { historyLength: -3 } }, 'params.configuration.historyLength'],
    ['fractional historyLength', 'tasks/get', { id: 'seed-task', historyLength: 1.5 }, 'params.historyLength'],
    ['historyLength a string', 'tasks/get', { id: 'seed-task', historyLength: '2' }, 'params.historyLength'],
    ['task id a number', 'tasks/get', { id: 5 }, 'params.id'],
    ['task id missing', 'tasks/cancel', {}, 'params.id'],
    ['text not a string', 'tasks/send', { id: 'x', message: { role: 'user', parts: [{ type: 'text', text: 5 }] } }, 'params.message.parts.0.text'],
    ['data not an object', 'message/send', { message: { role: 'user', parts: [{ kind: 'data', data: 'x' }] } }, 'params.message.parts.0.data'],
    ['blocking not a boolean', 'message/send', { ...msgB('x'), configuration: { blocking: 'no' } }, 'params.configuration.blocking'],
    ['sessionId a number', 'tasks/send', { ...msgA('x'), id: 'x', sessionId: 1 }, 'params.sessionId'],
    ['push config url missing', 'tasks/pushNotificationConfig/set', { taskId: 'seed-task', pushNotificationConfig: {} }, 'params.pushNotificationConfig.url'],
  ];
  for (const [name, method, params, path] of cases) {
    t.test(name, async (t) => {
      const r = await gw.rpc({ method, key, id: `ip-${name}`, params });
      isError(t, r, { code: -32602, reason: 'INVALID_PARAMS', id: `ip-${name}` });
      t.equal(r.json.error.data.path, path, `data.path ${path}`);
      const field = path === 'params.""' ? /empty key/ : path === 'params' ? /params/ : path.split('.').pop()!;
      t.match(r.json.error.message, field, 'the message names the field');
    });
  }
});

t.test('-32603 INTERNAL_ERROR: a server-side failure during execution, with no internals shown', async (t) => {
  const broken = await startTestGateway();
  t.teardown(() => broken.close());
  const k = (await broken.key()).key;
  t.equal((await broken.rpc({ method: 'tasks/get', key: k, params: { id: 'x' } })).json.error.code, -32001, 'working before');
  // the store goes away under the running server: every call now fails inside execution
  await broken.gw.store.close();
  const r = await broken.rpc({ method: 'tasks/get', key: k, id: 'ie', params: { id: 'x' } });
  isError(t, r, { code: -32603, reason: 'INTERNAL_ERROR', id: 'ie' });
  t.equal(r.json.error.message, 'Internal error while executing the request');
  t.same(Object.keys(r.json.error.data), ['reason'], 'no stack, no store error text');
  const batch = await broken.rpc({ body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }]), key: k });
  t.equal(batch.json[0].error.code, -32603, 'the same inside a batch');
});

t.test('-32001 TASK_NOT_FOUND', async (t) => {
  const nf = (r: RpcResult, id?: unknown) => isError(t, r, { code: -32001, reason: 'TASK_NOT_FOUND', ...(id !== undefined && { id }) });
  const r = await gw.rpc({ method: 'tasks/get', key, id: 'nf-1', params: { id: 'no-such-task' } });
  nf(r, 'nf-1');
  t.match(r.json.error.message, /no-such-task/);
  nf(await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'no-such-task' } }));
  nf(await gw.rpc({ method: 'tasks/pushNotification/set', key, params: { id: 'no-such-task', pushNotificationConfig: { url: 'http://127.0.0.1:9/h' } } }));
  nf(await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: 'no-such-task' } }));
  nf(await gw.rpc({ method: 'message/send', key, params: msgB('x', { taskId: 'no-such-task' }) }), undefined);

  t.test("another workspace's task is not found", async (t) => {
    const other = (await gw.key({ workspace: 'ws2' })).key;
    isError(t, await gw.rpc({ method: 'tasks/get', key: other, params: { id: 'seed-task' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });
    isError(t, await gw.rpc({ method: 'tasks/cancel', key: other, params: { id: 'seed-task' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });
  });

  t.test('a task of an agent the key may not reach is not found', async (t) => {
    const narrow = (await gw.key({ agents: ['converse'] })).key;
    isError(t, await gw.rpc({ method: 'tasks/get', key: narrow, params: { id: 'seed-task' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });
    const viaUrl = await gw.rpc({ method: 'tasks/get', key, params: { id: 'seed-task' }, path: '/api/a2a/agents/converse' });
    isError(t, viaUrl, { code: -32001, reason: 'TASK_NOT_FOUND' });
    const right = await gw.rpc({ method: 'tasks/get', key, params: { id: 'seed-task' }, path: '/api/a2a/agents/echo' });
    t.equal(right.json.result.id, 'seed-task', "found under its own agent's URL");
  });
});

t.test('-32002 TASK_NOT_CANCELABLE: canceling a completed task', async (t) => {
  const r = await gw.rpc({ method: 'tasks/cancel', key, id: 'tnc', params: { id: 'seed-task' } });
  isError(t, r, { code: -32002, reason: 'TASK_NOT_CANCELABLE', id: 'tnc' });
  t.equal(r.json.error.data.state, 'completed');
});

t.test('-32003 UNAUTHORIZED: 401 with WWW-Authenticate: Bearer', async (t) => {
  const unauthorized = (t: Test, r: RpcResult, id: unknown) => {
    isError(t, r, { code: -32003, reason: 'UNAUTHORIZED', status: 401, id });
    t.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
  };
  const call = (headers: Record<string, string>, id: string) => gw.rpc({ method: 'tasks/get', id, params: { id: 'seed-task' }, headers });

  t.test('missing', async (t) => {
    const r = await call({}, 'u1');
    unauthorized(t, r, 'u1');
    t.match(r.json.error.message, /missing/i);
    unauthorized(t, await call({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 'u2'), 'u2');
    unauthorized(t, await call({ Authorization: 'Bearer' }, 'u3'), 'u3');
  });
  t.test('malformed', async (t) => {
    unauthorized(t, await call({ Authorization: 'Bearer not-a-key' }, 'u4'), 'u4');
    unauthorized(t, await call({ Authorization: `Bearer sk_${key.slice(8)}` }, 'u5'), 'u5');
    unauthorized(t, await call({ Authorization: `Bearer ${key}!` }, 'u6'), 'u6');
  });
  t.test('unknown (well-formed, never issued)', async (t) => {
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    unauthorized(t, await call({ Authorization: `Bearer ${key.slice(0, -1)}${last}` }, 'u7'), 'u7');
  });
  t.test('revoked: refused on the very next request', async (t) => {
    const k = await gw.key();
    t.equal((await gw.rpc({ method: 'tasks/get', key: k.key, params: { id: 'seed-task' } })).status, 200);
    await revokeKey({ keys: gw.gw.store.keys, relays: gw.gw.store.relays, secret: gw.gw.secret, clock: { now: () => Date.now() } }, k.id);
    const r = await gw.rpc({ method: 'tasks/get', key: k.key, id: 'u8', params: { id: 'seed-task' } });
    unauthorized(t, r, 'u8');
    t.match(r.json.error.message, /revoked/);
  });
  t.test('expired', async (t) => {
    const clock = new ManualClock(Date.now());
    const cgw = await startTestGateway({ clock });
    t.teardown(() => cgw.close());
    const k = await cgw.key({ expiresAt: clock.now() + 60_000 });
    t.equal((await cgw.rpc({ method: 'tasks/get', key: k.key, params: { id: 'x' } })).json.error.code, -32001, 'valid before expires_at');
    clock.advance(60_000);
    const r = await cgw.rpc({ method: 'tasks/get', key: k.key, id: 'u9', params: { id: 'x' } });
    unauthorized(t, r, 'u9');
    t.match(r.json.error.message, /expired/);
  });
  t.test('authentication comes first: an unknown method without a key is -32003', async (t) => {
    unauthorized(t, await gw.rpc({ method: 'no/such', id: 'u10', params: {} }), 'u10');
  });
});

t.test('-32004 RATE_LIMITED: 429 with Retry-After', async (t) => {
  const limited = (await gw.key({ limits: { perMinute: 1, perHour: 1000 } })).key;
  const first = await gw.rpc({ method: 'tasks/get', key: limited, params: { id: 'seed-task' } });
  t.equal(first.status, 200);
  t.equal(first.json.result.id, 'seed-task');
  const second = await gw.rpc({ method: 'tasks/get', key: limited, id: 'rl', params: { id: 'seed-task' } });
  isError(t, second, { code: -32004, reason: 'RATE_LIMITED', status: 429, id: 'rl' });
  const retry = Number(second.headers.get('retry-after'));
  t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry} s within the minute window`);
  t.match(second.json.error.message, /back off/i);

  t.test('scope is checked before the rate limit', async (t) => {
    const ro = (await gw.key({ trust: 'read_only', limits: { perMinute: 1, perHour: 1000 } })).key;
    await gw.rpc({ method: 'tasks/get', key: ro, params: { id: 'seed-task' } });
    isError(t, await gw.rpc({ method: 'tasks/send', key: ro, params: msgA('x') }), { code: -32006, reason: 'SCOPE_INSUFFICIENT', status: 403 });
  });

  t.test('each batch element counts', async (t) => {
    const k = (await gw.key({ limits: { perMinute: 1, perHour: 1000 } })).key;
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'seed-task' } },
      { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: 'seed-task' } },
    ]);
    const r = await gw.rpc({ body, key: k });
    t.equal(r.json.length, 2);
    t.equal(r.json.filter((e: { result?: unknown }) => e.result).length, 1, 'one answered');
    t.same(
      r.json.filter((e: { error?: { code: number } }) => e.error).map((e: { error: { code: number } }) => e.error.code),
      [-32004],
      'one refused',
    );
  });
});

t.test('-32005 AGENT_NOT_FOUND', async (t) => {
  const r = await gw.rpc({ method: 'tasks/send', key, id: 'anf', params: msgA('x', { id: 'anf-1', metadata: { agentId: 'nope' } }) });
  isError(t, r, { code: -32005, reason: 'AGENT_NOT_FOUND', id: 'anf' });
  t.match(r.json.error.message, /nope/);
  isError(t, await gw.rpc({ method: 'message/send', key, params: msgB('x', { metadata: { agentId: 'nope' } }) }), { code: -32005, reason: 'AGENT_NOT_FOUND' });
  isError(t, await gw.rpc({ method: 'message/send', key, params: msgB('x'), path: '/api/a2a/agents/nope' }), { code: -32005, reason: 'AGENT_NOT_FOUND' });
  isError(t, await gw.rpc({ method: 'message/send', key, params: { ...msgB('x'), metadata: { skillId: 'no-skill' } } }), {
    code: -32005,
    reason: 'AGENT_NOT_FOUND',
  });
  const narrow = (await gw.key({ agents: ['converse'] })).key;
  isError(t, await gw.rpc({ method: 'message/send', key: narrow, params: msgB('x', { metadata: { agentId: 'echo' } }) }), {
    code: -32005,
    reason: 'AGENT_NOT_FOUND',
  });
  const ok = await gw.rpc({ method: 'message/send', key, params: msgB('x'), path: '/api/a2a/agents/converse' });
  t.equal(ok.json.result.status.state, 'input-required', "the URL's agent runs the task");
  isError(t, await gw.rpc({ method: 'tasks/get', key, params: { id: 'anf-1' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });
});

t.test('-32006 SCOPE_INSUFFICIENT: 403', async (t) => {
  const ro = (await gw.key({ trust: 'read_only' })).key;
  const r = await gw.rpc({ method: 'tasks/send', key: ro, id: 'si', params: msgA('x', { id: 'si-1' }) });
  isError(t, r, { code: -32006, reason: 'SCOPE_INSUFFICIENT', status: 403, id: 'si' });
  t.equal(r.json.error.data.required, 'tasks.create');
  isError(t, await gw.rpc({ method: 'tasks/get', key: ro, params: { id: 'si-1' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });

  const exec = (await gw.key({ trust: 'execute' })).key;
  const c = await gw.rpc({ method: 'tasks/cancel', key: exec, params: { id: 'no-such-task' } });
  isError(t, c, { code: -32006, reason: 'SCOPE_INSUFFICIENT', status: 403 });
  t.equal(c.json.error.data.required, 'tasks.cancel', 'the scope is checked before the task is looked up');

  const narrowed = (await gw.key({ trust: 'admin', scopes: ['tasks.create'] })).key;
  const g = await gw.rpc({ method: 'tasks/get', key: narrowed, params: { id: 'seed-task' } });
  isError(t, g, { code: -32006, reason: 'SCOPE_INSUFFICIENT', status: 403 });
  t.equal(g.json.error.data.required, 'tasks.read');
  const auton = (await gw.key({ trust: 'autonomous' })).key;
  isError(t, await gw.rpc({ method: 'message/stream', key: auton, params: msgB('x') }), { code: -32006, reason: 'SCOPE_INSUFFICIENT', status: 403 });
});

t.test('413: an over-size body', async (t) => {
  const small = await startTestGateway({ config: { maxBodyBytes: 4096 } });
  t.teardown(() => small.close());
  const k = (await small.key()).key;
  const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tasks/send', params: msgA('x'.repeat(5000), { id: 'big-1' }) });

  t.test('with Content-Length', async (t) => {
    const r = await small.rpc({ body: big, key: k });
    isError(t, r, { code: -32600, reason: 'PAYLOAD_TOO_LARGE', status: 413, id: null });
    t.equal(r.json.error.data.limit, 4096);
    t.match(r.json.error.message, /4096/);
  });

  t.test('chunked, with no Content-Length', async (t) => {
    const post = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.subarray(i, i + 1000));
          c.close();
        },
      });
      const init: RequestInit & { duplex: 'half' } = {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${k}` },
        body,
        duplex: 'half',
      };
      return fetch(`${small.url}/api/a2a`, init);
    };
    const res = await post(big);
    t.equal(res.status, 413);
    const json = JSON.parse(await res.text());
    t.equal(json.error.data.reason, 'PAYLOAD_TOO_LARGE');
    const fits = await post(JSON.stringify({ jsonrpc: '2.0', id: 'fits', method: 'tasks/send', params: msgA('y'.repeat(2000), { id: 'fits-1' }) }));
    t.equal(fits.status, 200, 'a chunked body under the limit is read whole');
    t.equal((await fits.json()).result.status.state, 'completed');
  });

  t.test('nothing of it was stored', async (t) => {
    isError(t, await small.rpc({ method: 'tasks/get', key: k, params: { id: 'big-1' } }), { code: -32001, reason: 'TASK_NOT_FOUND' });
  });

  t.test('the default limit is 1 MiB', async (t) => {
    const padding = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 'pad', method: 'tasks/get', params: { id: 'seed-task', metadata: { pad: 'p'.repeat(n) } } });
    const base = padding(0).length;
    const under = await gw.rpc({ body: padding(1024 * 1024 - base), key });
    t.equal(under.status, 200, 'exactly 1 MiB is accepted');
    t.equal(under.json.result.id, 'seed-task');
    const over = await gw.rpc({ body: padding(1024 * 1024 - base + 1), key });
    t.equal(over.status, 413, 'one byte more is refused');
    t.equal(over.json.error.data.limit, 1024 * 1024);
  });
});
