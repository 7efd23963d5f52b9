// A module agent's output must be JSON data: a BigInt, a Set or a Date in an event crosses to the main thread (structured
// clone carries them) and, stored, a BigInt made the send and every later read of the task, and of its workspace's task
// listing, answer 500 / -32603. The turn fails instead, naming the value and its path; nothing of it is stored.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));
const VALUES = { bigint: 'bigint', set: 'Set', date: 'Date' } as const;

t.test('an agent event holding a value JSON cannot carry fails the turn; the task and the listing still read', async (t) => {
  const gw = await startTestGateway({
    config: {
      agents: [
        ...DEMO_AGENTS,
        ...Object.keys(VALUES).map((value) => ({
          id: `odd-${value}`,
          name: value,
          kind: 'module' as const,
          entry: fixture('not-json.js'),
          options: { value },
        })),
      ],
    },
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  for (const [value, what] of Object.entries(VALUES)) {
    await t.test(value, async (t) => {
      const sent = await gw.rpc({ key, method: 'message/send', params: msgB('go', { metadata: { agentId: `odd-${value}` } }) });
      t.equal(sent.status, 200, 'the send is answered');
      t.equal(sent.json.result?.status?.state, 'failed', `the turn fails: ${JSON.stringify(sent.json).slice(0, 200)}`);
      t.match(JSON.stringify(sent.json.result?.status?.message), new RegExp(`a ${what} at event\\.artifact\\.parts\\.0\\.data\\.value, which is not JSON`));
      t.same(sent.json.result?.artifacts, [], 'no artifact holding it was stored');
      const got = await gw.rpc({ key, method: 'tasks/get', params: { id: sent.json.result?.id } });
      t.equal(got.status, 200, 'the task reads');
    });
  }
  const listed = await gw.rpc({ key, method: 'tasks/list', params: { includeArtifacts: true } });
  t.equal(listed.status, 200, "the workspace's listing reads");
  t.equal(listed.json.result?.tasks?.length, 3);
  const next = await gw.rpc({ key, method: 'message/send', params: msgB('still here') });
  t.equal(next.json.result?.status?.state, 'completed', 'the next send works');
});
