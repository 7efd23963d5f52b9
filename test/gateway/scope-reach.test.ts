// Push config scopes under every method name, and the extended card limited to what a key may reach, over real HTTP
// (a narrowed key, a key with an agent list, a relay agent with permitted keys).
import t from 'tap';
import { addRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { connectRelay } from '../support/tunnel-client.js';

const V1 = { 'A2A-Version': '1.0' };

t.test('a key narrowed to tasks.create may set and delete push configs (spec, protocol notes), never get or list them', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const creator = await tg.key({ trust: 'execute', scopes: ['tasks.create'] });
  const id: string = (await tg.rpc({ method: 'message/send', key: creator.key, params: msgB('seed') })).json.result.id;
  const hook = { url: 'https://hooks.example.com/a2a' };
  const calls: Array<{ method: string; params: unknown; allowed: boolean; v1?: boolean }> = [
    { method: 'tasks/pushNotification/set', params: { id, pushNotificationConfig: { id: 'a', ...hook } }, allowed: true },
    { method: 'tasks/pushNotification/get', params: { id }, allowed: false },
    { method: 'tasks/pushNotificationConfig/set', params: { taskId: id, pushNotificationConfig: { id: 'b', ...hook } }, allowed: true },
    { method: 'tasks/pushNotificationConfig/get', params: { taskId: id, pushNotificationConfigId: 'b' }, allowed: false },
    { method: 'tasks/pushNotificationConfig/list', params: { taskId: id }, allowed: false },
    { method: 'tasks/pushNotificationConfig/delete', params: { taskId: id, pushNotificationConfigId: 'b' }, allowed: true },
    { method: 'CreateTaskPushNotificationConfig', params: { taskId: id, id: 'c', ...hook }, allowed: true, v1: true },
    { method: 'GetTaskPushNotificationConfig', params: { taskId: id, id: 'c' }, allowed: false, v1: true },
    { method: 'ListTaskPushNotificationConfigs', params: { taskId: id }, allowed: false, v1: true },
    { method: 'DeleteTaskPushNotificationConfig', params: { taskId: id, id: 'c' }, allowed: true, v1: true },
  ];
  for (const c of calls) {
    const r = await tg.rpc({ method: c.method, key: creator.key, params: c.params, ...(c.v1 && { headers: V1 }) });
    if (c.allowed) {
      t.notOk(r.json.error, `${c.method}: tasks.create is its scope`);
      continue;
    }
    t.equal(r.status, 403, `${c.method}: 403`);
    t.equal(r.json.error.code, c.v1 ? -32051 : -32006, `${c.method}: scope insufficient`);
    const required = c.v1 ? r.json.error.data[0].metadata.required : r.json.error.data.required;
    t.equal(required, 'tasks.read', `${c.method}: names tasks.read`);
    t.notMatch(JSON.stringify(r.json), 'hooks.example.com', `${c.method}: no config leaks`);
  }
  const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tasks/pushNotificationConfig/list', params: { taskId: id } }]);
  const b = await tg.rpc({ body: batch, key: creator.key });
  t.equal(b.json[0].error.code, -32006, 'inside a batch too');
  t.equal((await tg.gw.store.pushConfigs.list(`ws1/${id}`)).length, 1, 'the refused calls changed nothing: one config left (a)');
});

t.test(
  'the extended card, under both names: on /api/a2a the agents the key may reach, on an agent URL that agent alone, if the key may reach it',
  async (t) => {
    const tg = await startTestGateway();
    t.teardown(() => tg.close());
    const deps = { relays: tg.gw.store.relays, keys: tg.gw.store.keys, clock: { now: () => Date.now() } };
    const relayKey = await tg.key({ workspace: 'ws1', trust: 'execute' });
    await addRelay(deps, { workspace: 'ws1', name: 'home', key: relayKey.id });
    const permitted = await tg.key({ trust: 'read_only' });
    const barred = await tg.key({ trust: 'read_only' });
    const echoOnly = await tg.key({ trust: 'read_only', agents: ['echo'] });
    await setRelayAgent(deps, { workspace: 'ws1', name: 'home', agent: 'local-secret', keys: [permitted.id] });
    const { client } = await connectRelay({
      url: tg.url,
      key: relayKey.key,
      workspace: 'ws1',
      agents: [{ name: 'local-secret', description: 'local', skills: [{ id: 'secret-skill', name: 'Secret', description: 'a skill' }] }],
    });
    t.teardown(() => client.close());

    // the card's skill ids, or the error code when there is no card for this key
    const skills = async (key: string, method: string, path: string): Promise<string[] | number> => {
      const r = await tg.rpc({ method, key, params: {}, path, ...(method === 'GetExtendedAgentCard' && { headers: V1 }) });
      if (r.json.error) return r.json.error.code as number;
      return (r.json.result.skills as Array<{ id: string }>).map((s) => s.id).sort();
    };
    for (const method of ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard']) {
      const at = (path: string) => `${method} at ${path}`;
      t.same(
        await skills(permitted.key, method, '/api/a2a'),
        ['converse', 'echo', 'secret-skill', 'slow'],
        `${at('/api/a2a')}: a permitted key sees the relay agent`,
      );
      t.same(await skills(barred.key, method, '/api/a2a'), ['converse', 'echo', 'slow'], `${at('/api/a2a')}: a key not permitted does not`);
      t.same(await skills(echoOnly.key, method, '/api/a2a'), ['echo'], `${at('/api/a2a')}: a key with an agent list sees its agents only`);
      for (const key of [permitted, barred, echoOnly])
        t.same(await skills(key.key, method, '/api/a2a/agents/echo'), ['echo'], `${at('/api/a2a/agents/echo')}: echo's own card`);
      t.same(
        await skills(permitted.key, method, '/api/a2a/agents/local-secret'),
        ['secret-skill'],
        `${at('/api/a2a/agents/local-secret')}: the relay agent's card for a permitted key`,
      );
      for (const key of [barred, echoOnly]) {
        t.equal(
          await skills(key.key, method, '/api/a2a/agents/local-secret'),
          method === 'GetExtendedAgentCard' ? -32053 : -32005,
          `${at('/api/a2a/agents/local-secret')}: no card for a key that may not reach it (agent not found)`,
        );
      }
    }
  },
);
