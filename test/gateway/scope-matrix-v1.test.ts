// Scopes of the methods the trust-level table of auth.test.ts leaves out: A2A 1.0's names, tasks/list and the agent
// extensions, for every trust level and for an explicit scope list that narrows admin to one scope. Written out from
// the spec and docs/decisions.md ("A2A 1.0": the same scopes as the 0.3 counterparts), not derived from the method table.
import t from 'tap';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

type Trust = 'read_only' | 'execute' | 'autonomous' | 'admin';
const LEVELS: Trust[] = ['read_only', 'execute', 'autonomous', 'admin'];
const BUNDLE: Record<Trust, string[]> = {
  read_only: ['agents.list', 'agents.read', 'tasks.read', 'results.read'],
  execute: ['agents.list', 'agents.read', 'tasks.read', 'results.read', 'tasks.create'],
  autonomous: ['agents.list', 'agents.read', 'tasks.read', 'results.read', 'tasks.create', 'tasks.cancel', 'results.files'],
  admin: ['agents.list', 'agents.read', 'tasks.read', 'results.read', 'tasks.create', 'tasks.cancel', 'results.files', 'tasks.stream'],
};

const METHODS: Array<[method: string, scope: string, v1: boolean]> = [
  ['SendMessage', 'tasks.create', true],
  ['SendStreamingMessage', 'tasks.stream', true],
  ['GetTask', 'tasks.read', true],
  ['ListTasks', 'tasks.read', true],
  ['CancelTask', 'tasks.cancel', true],
  ['SubscribeToTask', 'tasks.stream', true],
  ['CreateTaskPushNotificationConfig', 'tasks.create', true],
  ['GetTaskPushNotificationConfig', 'tasks.read', true],
  ['ListTaskPushNotificationConfigs', 'tasks.read', true],
  ['DeleteTaskPushNotificationConfig', 'tasks.create', true],
  ['GetExtendedAgentCard', 'agents.read', true],
  ['tasks/list', 'tasks.read', false],
  ['agents/list', 'agents.list', false],
  ['agents/get', 'agents.read', false],
];

/** One call; an SSE answer (an allowed stream) is cut at its headers. */
async function call(tg: TestGateway, key: string, method: string, v1: boolean) {
  const ac = new AbortController();
  const res = await fetch(`${tg.url}/api/a2a`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, ...(v1 && { 'A2A-Version': '1.0' }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'c', method, params: {} }),
  });
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) {
    ac.abort();
    return { status: res.status, json: undefined };
  }
  return { status: res.status, json: JSON.parse(await res.text()) };
}

t.test('every trust level and a one-scope key against the 1.0 names and the extensions', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const keys: Array<[label: string, key: string, scopes: string[]]> = [];
  for (const level of LEVELS) keys.push([level, (await tg.key({ trust: level })).key, BUNDLE[level]]);
  keys.push(['admin narrowed to tasks.read', (await tg.key({ trust: 'admin', scopes: ['tasks.read'] })).key, ['tasks.read']]);
  keys.push(['admin narrowed to agents.list', (await tg.key({ trust: 'admin', scopes: ['agents.list'] })).key, ['agents.list']]);

  for (const [label, key, scopes] of keys) {
    for (const [method, scope, v1] of METHODS) {
      const r = await call(tg, key, method, v1);
      const what = `${label} ${method}`;
      if (scopes.includes(scope)) {
        t.not(r.status, 403, `${what}: not refused by scope`);
        continue;
      }
      t.equal(r.status, 403, `${what}: 403`);
      const code = v1 ? -32051 : -32006;
      t.equal(r.json?.error?.code, code, `${what}: scope insufficient`);
      const required = v1 ? r.json?.error?.data?.[0]?.metadata?.required : r.json?.error?.data?.required;
      t.equal(required, scope, `${what}: names ${scope}`);
    }
  }
});
