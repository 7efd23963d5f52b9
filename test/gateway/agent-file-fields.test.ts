// An agent's file parts are bounded as a caller's are: a name past 1,024 characters or a type past 256 fails the
// turn (agent_protocol, the message naming the field) and nothing of it is stored; a name and type at the bound are
// stored and served. Before, a module agent's 1 MB file name was stored and answered. Real gateway, module agents on
// the worker pool.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

const entry = fileURLToPath(new URL('../fixtures/agents/long-file-fields.js', import.meta.url));
const agent = (id: string, options: Record<string, unknown>) => ({ id, name: id, kind: 'module' as const, entry, options });

t.test("an agent's file name and type are bounded", async (t) => {
  const tg = await startTestGateway({
    config: {
      agents: [
        agent('huge-name', { field: 'name', length: 1024 * 1024, where: 'artifact' }),
        agent('long-type', { field: 'mimeType', length: 257, where: 'message' }),
        agent('name-at-bound', { field: 'name', length: 1024, where: 'artifact' }),
        agent('type-at-bound', { field: 'mimeType', length: 256, where: 'message' }),
      ],
    },
  });
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const send = (agentId: string) => tg.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId } }) });

  const cases: Array<[string, RegExp]> = [
    ['huge-name', /artifact\.parts\.0\.file\.name: at most 1024 characters/],
    ['long-type', /message\.parts\.0\.file\.mimeType: at most 256 characters/],
  ];
  for (const [agentId, says] of cases) {
    const r = await send(agentId);
    const result = r.json.result;
    t.equal(result?.status?.state, 'failed', `${agentId}: the turn fails`);
    t.equal(result?.status?.message?.metadata?.reason, 'agent_protocol', `${agentId}: as an agent-protocol violation`);
    t.match(result?.status?.message?.parts?.[0]?.text, says, `${agentId}: the message names the field`);
    const got = await tg.rpc({ method: 'tasks/get', key, params: { id: result?.id } });
    t.ok(JSON.stringify(got.json).length < 10_000, `${agentId}: the over-long value is neither stored nor served`);
    t.same(got.json.result?.artifacts, [], `${agentId}: no artifact kept`);
  }

  const name = await send('name-at-bound');
  t.equal(name.json.result?.status?.state, 'completed', 'a name of 1,024 characters is fine');
  t.equal(name.json.result?.artifacts?.[0]?.parts?.[0]?.file?.name?.length, 1024);
  const type = await send('type-at-bound');
  t.equal(type.json.result?.status?.state, 'completed', 'a type of 256 characters is fine');
  t.equal(type.json.result?.status?.message?.parts?.[0]?.file?.mimeType?.length, 256);
});
