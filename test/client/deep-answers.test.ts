// A remote agent whose answer nests deeper than accepted JSON may (a real gateway, a real node:http remote): the turn
// fails as a bad response naming the place, and the task is kept. Stored, such data overflowed the store's encoder:
// the caller's send got -32603 store_write_failed and the task was lost.
import t from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { cardServer } from '../support/card-server.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { ALL_STATES } from '../support/tasks.js';

t.test('a remote answer nested 2,000 levels deep fails the turn; one at the params bound is kept', async (t) => {
  const remote = await cardServer(t);
  /** a 0.3 remote at /<name> whose send answers a completed task with a data part nested `levels` deep */
  const deepRemote = (name: string, levels: number) => {
    const data = `${'{"k":'.repeat(levels)}1${'}'.repeat(levels)}`;
    remote.route.set(`/${name}/.well-known/agent-card.json`, () => ({
      status: 200,
      body: { name, description: '', url: `${remote.url}/${name}/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: { streaming: false } },
    }));
    remote.route.set(`/${name}/rpc`, (_h, body) => ({
      status: 200,
      body: `{"jsonrpc":"2.0","id":${JSON.stringify(JSON.parse(body).id)},"result":{"kind":"task","id":"r-1","contextId":"c-1","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"data","data":${data}}]}]}}`,
    }));
  };
  deepRemote('deep', 2000);
  deepRemote('bound', 64);
  const gw = await startTestGateway({
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        { id: 'deep', name: 'deep', kind: 'remote', connection: 'deep', workspace: 'ws1' },
        { id: 'bound', name: 'bound', kind: 'remote', connection: 'bound', workspace: 'ws1' },
      ],
    },
  });
  t.teardown(() => gw.close());
  for (const name of ['deep', 'bound']) {
    await addConnection(
      { connections: gw.gw.store.connections, secret: gw.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) },
      { workspace: 'ws1', name, url: `${remote.url}/${name}`, credentials: { kind: 'none' }, trust: 'admin', storeResults: true },
    );
  }
  const { key } = await gw.key();

  const deep = await gw.rpc({ key, method: 'message/send', params: msgB('x', { metadata: { agentId: 'deep' } }) });
  t.notOk(deep.json.error, `no -32603: ${JSON.stringify(deep.json.error)}`);
  t.equal(deep.json.result?.status?.state, 'failed', 'the turn fails');
  t.match(deep.json.result?.status?.message?.parts?.[0]?.text, /nests deeper than \d+ levels \(at answer\.result\.artifacts\.0\.parts\.0\.data\.k/);
  t.same(
    (await gw.gw.store.tasks.listByState(ALL_STATES)).map((s) => s.id),
    [deep.json.result?.id],
    'the task is kept',
  );

  const bound = await gw.rpc({ key, method: 'message/send', params: msgB('x', { metadata: { agentId: 'bound' } }) });
  t.equal(bound.json.result?.status?.state, 'completed', 'data nested as deep as params may is kept');
  const listed = await gw.rpc({ key, method: 'tasks/list', params: { includeArtifacts: true } });
  t.equal(listed.json.result?.tasks?.length, 2);
});
