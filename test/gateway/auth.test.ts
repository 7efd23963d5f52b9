// Authentication, scopes and trust levels, key expiry, and key administration with the real CLI, all over real HTTP.
//
// Secret sharing with the CLI: startTestGateway gives the in-process server its own secret (not `<dataDir>/secret`),
// so each CLI child gets A2A_SECRET set to that same secret (`tg.gw.secret`); the CLI then hashes keys the way the
// server does, and both processes open the same LMDB directory.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { createKey } from '../../src/runtime/key-admin.js';
import { hashKey } from '../../src/runtime/keys.js';
import { jsonOut, runCli } from '../support/cli.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';

type Trust = 'read_only' | 'execute' | 'autonomous' | 'admin';
const LEVELS: Trust[] = ['read_only', 'execute', 'autonomous', 'admin'];
const rank = (l: Trust) => LEVELS.indexOf(l);

/** A raw JSON-RPC POST that tolerates an SSE answer (streaming methods): reads the body only when it is JSON. */
async function call(tg: TestGateway, key: string, method: string, params: unknown) {
  const ac = new AbortController();
  const res = await fetch(`${tg.url}/api/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: `c-${method}`, method, params }),
    signal: ac.signal,
  });
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) {
    ac.abort();
    return { status: res.status, type, json: undefined };
  }
  return { status: res.status, type, json: JSON.parse(await res.text()) };
}

t.test('trust levels against every method (table)', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const admin = await tg.key({ trust: 'admin' });
  const made = await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('seed') });
  t.equal(made.json.result?.status?.state, 'completed', 'seed task completed');
  const id: string = made.json.result.id;
  const hook = { url: 'https://hooks.example.com/a2a' };
  const set = await tg.rpc({
    method: 'tasks/pushNotificationConfig/set',
    key: admin.key,
    params: { taskId: id, pushNotificationConfig: { id: 'cfg-1', ...hook } },
  });
  t.ok(set.json.result, 'seed push config stored');

  // the spec's scope per method, and the lowest trust level whose bundle holds it (written out, not derived from src)
  const table: Array<{ method: string; scope: string; lowest: Trust; params: unknown }> = [
    { method: 'tasks/send', scope: 'tasks.create', lowest: 'execute', params: msgA('hi') },
    { method: 'message/send', scope: 'tasks.create', lowest: 'execute', params: msgB('hi') },
    { method: 'tasks/sendSubscribe', scope: 'tasks.stream', lowest: 'admin', params: msgA('hi') },
    { method: 'message/sendStream', scope: 'tasks.stream', lowest: 'admin', params: msgB('hi') },
    { method: 'message/stream', scope: 'tasks.stream', lowest: 'admin', params: msgB('hi') },
    { method: 'tasks/resubscribe', scope: 'tasks.stream', lowest: 'admin', params: { id } },
    { method: 'tasks/get', scope: 'tasks.read', lowest: 'read_only', params: { id } },
    { method: 'tasks/cancel', scope: 'tasks.cancel', lowest: 'autonomous', params: { id } },
    { method: 'tasks/pushNotification/set', scope: 'tasks.create', lowest: 'execute', params: { id, pushNotificationConfig: hook } },
    { method: 'tasks/pushNotification/get', scope: 'tasks.read', lowest: 'read_only', params: { id } },
    { method: 'tasks/pushNotificationConfig/set', scope: 'tasks.create', lowest: 'execute', params: { taskId: id, pushNotificationConfig: hook } },
    { method: 'tasks/pushNotificationConfig/get', scope: 'tasks.read', lowest: 'read_only', params: { taskId: id, pushNotificationConfigId: 'cfg-1' } },
    { method: 'tasks/pushNotificationConfig/list', scope: 'tasks.read', lowest: 'read_only', params: { taskId: id } },
    {
      method: 'tasks/pushNotificationConfig/delete',
      scope: 'tasks.create',
      lowest: 'execute',
      params: { taskId: id, pushNotificationConfigId: 'no-such-config' },
    },
    { method: 'agent/getAuthenticatedExtendedCard', scope: 'agents.read', lowest: 'read_only', params: {} },
  ];
  // methods whose allowed call must actually succeed (the others may fail for reasons of their own, never scope)
  const mustSucceed = new Set([
    'tasks/send',
    'message/send',
    'tasks/get',
    'tasks/pushNotification/get',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'agent/getAuthenticatedExtendedCard',
  ]);

  for (const level of LEVELS) {
    const k = await tg.key({ trust: level });
    for (const row of table) {
      const r = await call(tg, k.key, row.method, row.params);
      const label = `${level} ${row.method}`;
      if (rank(level) >= rank(row.lowest)) {
        t.not(r.status, 403, `${label}: allowed, not 403`);
        t.not(r.json?.error?.code, -32006, `${label}: allowed, no -32006`);
        if (mustSucceed.has(row.method)) t.ok(r.json?.result, `${label}: succeeds`);
        if (row.method === 'tasks/cancel') t.equal(r.json?.error?.code, -32002, `${label}: reaches the handler (completed task is not cancelable)`);
      } else {
        t.equal(r.status, 403, `${label}: forbidden with 403`);
        t.equal(r.json?.error?.code, -32006, `${label}: forbidden with -32006`);
        t.equal(r.json?.error?.data?.required, row.scope, `${label}: names the missing scope`);
        t.equal(r.json?.id, `c-${row.method}`, `${label}: the error echoes the request id`);
      }
    }
  }
  // a refused send made no task: the seed is still the only one with a push config, and a get still finds the seed unchanged
  const seedAfter = await tg.rpc({ method: 'tasks/get', key: admin.key, params: { id } });
  t.equal(seedAfter.json.result.status.state, 'completed', 'the refused cancels did not touch the seed task');
});

t.test('explicit scopes narrow a trust level', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const admin = await tg.key({ trust: 'admin' });
  const id: string = (await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('seed') })).json.result.id;

  const narrow = await tg.key({ trust: 'execute', scopes: ['tasks.read'] });
  for (const method of ['message/send', 'tasks/send']) {
    const r = await tg.rpc({ method, key: narrow.key, params: method === 'tasks/send' ? msgA('x') : msgB('x') });
    t.equal(r.status, 403, `${method}: execute narrowed to tasks.read cannot send`);
    t.equal(r.json.error.code, -32006);
    t.equal(r.json.error.data.required, 'tasks.create');
  }
  const got = await tg.rpc({ method: 'tasks/get', key: narrow.key, params: { id } });
  t.equal(got.status, 200);
  t.equal(got.json.result.id, id, 'the scope it kept still works');
  const card = await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: narrow.key, params: {} });
  t.equal(card.json.error?.code, -32006, 'agents.read of the bundle is gone too');

  const wide = await tg.key({ trust: 'admin', scopes: ['tasks.create', 'tasks.read'] });
  const cancel = await tg.rpc({ method: 'tasks/cancel', key: wide.key, params: { id } });
  t.equal(cancel.json.error?.code, -32006, 'even admin is narrowed by explicit scopes');
});

t.test('explicit scopes never widen a level: createKey and the CLI refuse', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  await t.rejects(tg.key({ workspace: 'wide', trust: 'read_only', scopes: ['tasks.create'] }), /scopes/, 'createKey refuses read_only + tasks.create');

  const cli = (args: string[]) => runCli(['keys', ...args, '--data-dir', tg.dataDir], { secret: tg.gw.secret });
  // independent CLI runs go in parallel: each child takes seconds to start
  const [r1, r2, ok] = await Promise.all([
    cli(['create', '--workspace', 'wide', '--trust', 'read_only', '--scopes', 'tasks.create', '--json']),
    // streaming is reached only through admin
    cli(['create', '--workspace', 'wide', '--trust', 'autonomous', '--scopes', 'tasks.read,tasks.stream', '--json']),
    cli(['create', '--workspace', 'streamer', '--trust', 'admin', '--scopes', 'tasks.read,tasks.stream', '--json']),
  ]);
  t.not(r1.code, 0, 'CLI exits non-zero');
  t.match(r1.stderr, /scopes/, 'the message names scopes');
  t.match(r1.stderr, /tasks\.create/, 'and the scope that would widen the level');
  t.notMatch(r1.stdout, /svc_a2a_/, 'no key printed');

  t.not(r2.code, 0, 'autonomous + tasks.stream refused');
  t.match(r2.stderr, /tasks\.stream/);

  const list = await cli(['list', '--workspace', 'wide', '--json']);
  t.equal(list.code, 0);
  t.same(jsonOut(list), [], 'no key was stored by the refused creations');

  t.equal(ok.code, 0, 'admin may hold tasks.stream');
  const made = jsonOut(ok) as { key: string; scopes: string[] };
  t.same(made.scopes, ['tasks.read', 'tasks.stream']);
  const r = await call(tg, made.key, 'message/stream', msgB('s'));
  t.not(r.status, 403, 'the admin key narrowed to tasks.stream may stream');
  t.not(r.json?.error?.code, -32006, 'the admin key narrowed to tasks.stream may stream (no -32006)');
  const send = await tg.rpc({ method: 'message/send', key: made.key, params: msgB('x') });
  t.equal(send.json.error?.code, -32006, 'but may not send');
});

t.test('results.read gates artifacts and history', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const blind = await tg.key({ trust: 'execute', scopes: ['tasks.create', 'tasks.read'] });
  const full = await tg.key({ trust: 'execute' });
  const marker = 'marker-results-7731';

  for (const [method, params] of [
    ['message/send', msgB(marker)],
    ['tasks/send', msgA(marker)],
  ] as const) {
    const sent = await tg.rpc({ method, key: blind.key, params });
    const task = sent.json.result;
    t.equal(task.status.state, 'completed', `${method}: the key without results.read still runs the task`);
    t.same(task.artifacts, [], `${method}: no artifacts`);
    t.notOk('history' in task, `${method}: no history`);
    t.notMatch(JSON.stringify(sent.json), marker, `${method}: the result data appears nowhere`);

    const got = await tg.rpc({ method: 'tasks/get', key: blind.key, params: { id: task.id } });
    t.equal(got.json.result.status.state, 'completed', 'get: status is shown');
    t.same(got.json.result.artifacts, []);
    t.notOk('history' in got.json.result);
    t.notMatch(JSON.stringify(got.json), marker, 'get: the result data appears nowhere');

    const seen = await tg.rpc({ method: 'tasks/get', key: full.key, params: { id: task.id } });
    const art = seen.json.result.artifacts[0];
    t.equal((art.parts[0] as { text: string }).text, marker, 'a key with results.read sees the artifact');
    t.equal(seen.json.result.history.length, 1, 'and the history');
  }
});

t.test('results.files gates file bytes and uris', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const exec = await tg.key({ trust: 'execute' });
  const auto = await tg.key({ trust: 'autonomous' });
  const bytes = Buffer.from('file-content-marker-55831 \u00e9\u00e8').toString('base64');
  const uri = 'https://files.example.com/uri-marker-99120.txt';
  const fileParts = [
    { type: 'file', file: { name: 'report.bin', mimeType: 'application/octet-stream', bytes } },
    { type: 'file', file: { name: 'linked.txt', mimeType: 'text/plain', uri } },
  ];
  const sent = await tg.rpc({ method: 'tasks/send', key: exec.key, params: { message: { role: 'user', parts: fileParts } } });
  const task = sent.json.result;
  t.equal(task.status.state, 'completed');
  t.same(
    task.artifacts[0].parts,
    [
      { type: 'file', file: { name: 'report.bin', mimeType: 'application/octet-stream' } },
      { type: 'file', file: { name: 'linked.txt', mimeType: 'text/plain' } },
    ],
    'execute sees names and types, no bytes or uri, in the artifact',
  );
  t.same(task.history[0].parts, task.artifacts[0].parts, 'nor in the history');
  const text = JSON.stringify(sent.json);
  t.notMatch(text, bytes, 'the bytes appear nowhere');
  t.notMatch(text, 'uri-marker-99120', 'the uri appears nowhere');

  const viaGet = await tg.rpc({ method: 'tasks/get', key: exec.key, params: { id: task.id } });
  t.notMatch(JSON.stringify(viaGet.json), bytes, 'get by execute: no bytes');
  t.same(viaGet.json.result.artifacts[0].parts[1].file, { name: 'linked.txt', mimeType: 'text/plain' });

  const seen = await tg.rpc({ method: 'tasks/get', key: auto.key, params: { id: task.id } });
  t.same(seen.json.result.artifacts[0].parts, fileParts, 'autonomous sees the bytes and the uri');
  t.same(seen.json.result.history[0].parts, fileParts);

  // rev B shapes are gated the same way
  const b = await tg.rpc({
    method: 'message/send',
    key: exec.key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'mf-1', parts: [{ kind: 'file', file: { name: 'b.bin', mimeType: 'application/pdf', bytes } }] },
    },
  });
  t.same(b.json.result.artifacts[0].parts, [{ kind: 'file', file: { name: 'b.bin', mimeType: 'application/pdf' } }], 'rev B: gated');
  const bAuto = await tg.rpc({ method: 'tasks/get', key: auto.key, params: { id: b.json.result.id } });
  t.equal(bAuto.json.result.artifacts[0].parts[0].file.bytes, bytes, 'rev B: autonomous sees bytes');
});

t.test('agents.read gates the extended card', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const without = await tg.key({ trust: 'read_only', scopes: ['agents.list', 'tasks.read', 'results.read'] });
  const r = await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: without.key, params: {} });
  t.equal(r.status, 403);
  t.equal(r.json.error.code, -32006);
  t.equal(r.json.error.data.required, 'agents.read');

  const reader = await tg.key({ trust: 'read_only' });
  const ok = await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: reader.key, params: {} });
  t.equal(ok.status, 200);
  t.same(ok.json.result.skills.map((s: { id: string }) => s.id).sort(), ['converse', 'echo', 'slow'], 'the card lists the agents');
  const only = await tg.key({ trust: 'read_only', agents: ['echo'] });
  const limited = await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: only.key, params: {} });
  t.same(
    limited.json.result.skills.map((s: { id: string }) => s.id),
    ['echo'],
    'an allowlisted key sees only its agents',
  );
});

t.test('unauthenticated requests: -32003 with 401 and WWW-Authenticate', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const k = await tg.key({ trust: 'admin' });
  const cases: Array<[string, Record<string, string>]> = [
    ['no Authorization', {}],
    ['not Bearer', { Authorization: `Basic ${k.key}` }],
    ['malformed key', { Authorization: 'Bearer nope' }],
    ['unknown well-formed key', { Authorization: `Bearer svc_a2a_${'A'.repeat(43)}` }],
    ['tampered key', { Authorization: `Bearer ${k.key.slice(0, -1)}${k.key.endsWith('A') ? 'B' : 'A'}` }],
  ];
  for (const [label, headers] of cases) {
    const r = await tg.rpc({ method: 'tasks/get', params: { id: 'x' }, headers });
    t.equal(r.status, 401, `${label}: 401`);
    t.equal(r.json.error.code, -32003, `${label}: -32003`);
    t.match(r.headers.get('www-authenticate') ?? '', /^Bearer/, `${label}: WWW-Authenticate: Bearer`);
  }
  // an unknown method from an unauthenticated caller is still -32003 (authentication comes first)
  const unknown = await tg.rpc({ method: 'no/such', params: {} });
  t.equal(unknown.json.error.code, -32003);
});

t.test('expiry follows the injected clock: works before, -32003 at and after expires_at', async (t) => {
  const clock = new ManualClock();
  const tg = await startTestGateway({ clock });
  t.teardown(() => tg.close());
  const expiresAt = clock.now() + 60_000;
  const k = await tg.key({ trust: 'execute', expiresAt });
  const forever = await tg.key({ trust: 'execute' });
  const get = (key: string) => tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key, params: {} });

  t.equal((await get(k.key)).status, 200, 'works when created');
  clock.set(expiresAt - 1);
  const before = await get(k.key);
  t.equal(before.status, 200, 'works 1 ms before expiry');
  t.ok(before.json.result);
  clock.set(expiresAt);
  const at = await get(k.key);
  t.equal(at.status, 401, 'refused at exactly expires_at');
  t.equal(at.json.error.code, -32003);
  t.match(at.headers.get('www-authenticate') ?? '', /^Bearer/);
  const send = await tg.rpc({ method: 'message/send', key: k.key, params: msgB('late') });
  t.equal(send.json.error.code, -32003, 'no method works once expired');
  clock.advance(365 * 86_400_000);
  t.equal((await get(k.key)).json.error.code, -32003, 'still refused a year later');
  t.equal((await get(forever.key)).status, 200, 'a key without expires_at is unaffected');

  await t.rejects(
    createKey({ keys: tg.gw.store.keys, secret: tg.gw.secret, clock }, { workspace: 'ws1', trust: 'execute', expiresAt: clock.now() }),
    /expires_at/,
    'a key cannot be created already expired',
  );
});

t.test('CLI while the server runs: create, use, revoke, rotate, list', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const cli = (args: string[]) => runCli(['keys', ...args, '--data-dir', tg.dataDir], { secret: tg.gw.secret });

  t.test('revocation takes effect on the very next request', async (t) => {
    const [c, c2] = await Promise.all([
      cli(['create', '--workspace', 'w', '--trust', 'execute', '--json']),
      cli(['create', '--workspace', 'w', '--trust', 'execute', '--json']),
    ]);
    t.equal(c.code, 0, c.stderr);
    const made = jsonOut(c) as { id: string; key: string; trust: string };
    t.match(made.key, /^svc_a2a_[0-9A-Za-z]{43,}$/);
    t.equal(made.trust, 'execute');
    const other = jsonOut(c2) as { key: string };

    const sent = await tg.rpc({ method: 'message/send', key: made.key, params: msgB('before revoke') });
    t.equal(sent.json.result?.status?.state, 'completed', 'the CLI-made key works on the running server');
    // warm up: several requests, so any cache of the key would be populated
    for (let i = 0; i < 3; i++) t.equal((await tg.rpc({ method: 'tasks/get', key: made.key, params: { id: sent.json.result.id } })).status, 200);

    const [rv, again] = await Promise.all([cli(['revoke', made.id]), cli(['revoke', 'key_doesnotexist'])]);
    t.equal(rv.code, 0, rv.stderr);
    const next = await tg.rpc({ method: 'tasks/get', key: made.key, params: { id: sent.json.result.id } });
    t.equal(next.status, 401, 'the very next request is refused');
    t.equal(next.json.error.code, -32003);
    t.equal((await tg.rpc({ method: 'message/send', key: made.key, params: msgB('after') })).json.error.code, -32003, 'and every later one');
    t.equal(
      (await tg.rpc({ method: 'tasks/get', key: other.key, params: { id: sent.json.result.id } })).status,
      200,
      'another key of the workspace is untouched',
    );

    t.not(again.code, 0, 'revoking an unknown id fails');
    t.match(again.stderr, /key_doesnotexist/);
  });

  t.test('rotation: same scopes, both keys work until the old is revoked', async (t) => {
    const c = await cli([
      'create',
      '--workspace',
      'rot',
      '--trust',
      'autonomous',
      '--scopes',
      'tasks.read,tasks.create,results.read',
      '--agents',
      'echo',
      '--json',
    ]);
    t.equal(c.code, 0, c.stderr);
    const old = jsonOut(c) as { id: string; key: string };
    const r = await cli(['rotate', old.id, '--json']);
    t.equal(r.code, 0, r.stderr);
    const rotated = jsonOut(r) as { id: string; key: string; scopes: string[]; trust: string; workspace: string; rotated_from: string };
    t.not(rotated.key, old.key, 'a new key');
    t.not(rotated.id, old.id);
    t.same(rotated.scopes, ['tasks.read', 'tasks.create', 'results.read'], 'same scopes');
    t.equal(rotated.trust, 'autonomous');
    t.equal(rotated.workspace, 'rot');
    t.equal(rotated.rotated_from, old.id);

    const a = await tg.rpc({ method: 'message/send', key: old.key, params: msgB('old key') });
    const b = await tg.rpc({ method: 'message/send', key: rotated.key, params: msgB('new key') });
    t.equal(a.json.result?.status?.state, 'completed', 'the old key works');
    t.equal(b.json.result?.status?.state, 'completed', 'the new key works');
    t.equal(
      (await tg.rpc({ method: 'tasks/get', key: rotated.key, params: { id: a.json.result.id } })).json.result?.id,
      a.json.result.id,
      "the new key sees the old key's tasks (same workspace)",
    );
    const cancel = await tg.rpc({ method: 'tasks/cancel', key: rotated.key, params: { id: a.json.result.id } });
    t.equal(cancel.json.error?.code, -32006, 'the narrowed scopes carried over (no tasks.cancel although autonomous)');
    const converse = await tg.rpc({ method: 'message/send', key: rotated.key, params: msgB('x', { metadata: { agentId: 'converse' } }) });
    t.equal(converse.json.error?.code, -32005, 'the agent allowlist carried over');

    t.equal((await cli(['revoke', old.id])).code, 0);
    t.equal(
      (await tg.rpc({ method: 'tasks/get', key: old.key, params: { id: a.json.result.id } })).json.error?.code,
      -32003,
      'the old key is refused once revoked',
    );
    t.equal((await tg.rpc({ method: 'tasks/get', key: rotated.key, params: { id: a.json.result.id } })).status, 200, 'the new key still works');

    const rr = await cli(['rotate', old.id, '--json']);
    t.not(rr.code, 0, 'a revoked key cannot be rotated');
  });

  t.test('keys list never shows a key or its hash', async (t) => {
    const made = jsonOut(await cli(['create', '--workspace', 'lst', '--trust', 'read_only', '--name', 'lister', '--json'])) as { id: string; key: string };
    const hash = hashKey(tg.gw.secret, made.key);
    const [json, human] = await Promise.all([cli(['list', '--json']), cli(['list'])]);
    t.equal(json.code, 0, json.stderr);
    const rows = jsonOut(json) as Array<Record<string, unknown>>;
    const row = rows.find((x) => x.id === made.id);
    t.ok(row, 'the key is listed');
    t.equal(row?.trust, 'read_only');
    t.equal(row?.revoked, false);
    for (const x of rows) {
      t.notOk('key' in x, `${String(x.id)}: no key field`);
      t.notOk('hash' in x, `${String(x.id)}: no hash field`);
    }
    t.notMatch(json.stdout, made.key, 'the key string appears nowhere');
    t.notMatch(json.stdout, hash, 'its hash appears nowhere');
    t.notMatch(json.stdout, /svc_a2a_/, 'no key of any kind');
    t.equal(human.code, 0);
    t.match(human.stdout, made.id);
    t.notMatch(human.stdout, made.key);
    t.notMatch(human.stdout, hash);
    const revoked = rows.filter((x) => x.revoked === true);
    t.ok(revoked.length >= 1, 'revoked keys from the earlier subtests show as revoked');
  });
});
