// Our own agents' artifact ids are bounded as a caller's and a remote's ids are (MAX_ID_LENGTH, 256 characters): a
// module agent's longer one fails its turn (agent_protocol, the message naming the field) and nothing of it is stored;
// a relay agent's fails that turn only, the tunnel and its other turns go on (the frame closed the tunnel before this
// bound, which no relay's frame met). One at the bound is stored and served. A real gateway on port 0, a module agent
// written into a temp dir, a relay's end of the tunnel as a real WebSocket client sending msgpack frames.
import t, { type Test } from 'tap';
import { MAX_ID_LENGTH } from '../../src/protocol/model.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startModuleAgentGateway } from '../support/module-agent.js';
import { connectOneAgentRelay } from '../support/relay-world.js';
import { taskSeen } from '../support/tasks.js';

t.setTimeout(60_000);

const WS = 'ws1';
const LONG_ID = 'a'.repeat(MAX_ID_LENGTH + 1);
const FULL_ID = 'f'.repeat(MAX_ID_LENGTH);

// the module agent yields an artifact whose id is `length` characters long (the caller's text)
const MODULE_AGENT = `
export default async function* (ctx) {
  const artifactId = 'x'.repeat(Number(ctx.message.parts[0].text));
  yield { type: 'artifact', artifact: { artifactId, name: 'report', parts: [{ kind: 'text', text: 'the report' }] } };
  yield { type: 'status', state: 'completed' };
}`;

/** The answer's task, and the same task as tasks/get shows it and the store keeps it. */
function seen(g: TestGateway, key: string, answer: { json: any }) {
  return taskSeen(g, { key, workspace: WS, answer });
}

function expectRefused(t: Test, s: Awaited<ReturnType<typeof seen>>) {
  t.equal(s.task?.status?.state, 'failed', 'the turn fails');
  t.equal(s.task?.status?.message?.metadata?.reason, 'agent_protocol', 'as an agent-protocol violation');
  t.match(s.task?.status?.message?.parts?.[0]?.text, /artifact\.artifactId: at most 256 characters/, 'the message names the field');
  t.same(s.read?.artifacts ?? [], [], 'tasks/get shows no artifact');
  t.same(s.stored?.artifacts, [], 'the stored task keeps none');
}

function expectKept(t: Test, s: Awaited<ReturnType<typeof seen>>, id: string) {
  t.equal(s.task?.status?.state, 'completed', 'an id at the bound: the turn stands');
  t.equal(s.task?.artifacts?.[0]?.artifactId, id, 'answered as sent');
  t.equal(s.read?.artifacts?.[0]?.artifactId, id, 'read as sent');
  t.equal(s.stored?.artifacts[0]?.artifactId, id, 'stored as sent');
}

t.test("a module agent's artifactId past 256 characters fails its turn", async (t) => {
  const { g, key, send: sendText } = await startModuleAgentGateway(t, { agent: { id: 'ids', name: 'Ids' }, source: MODULE_AGENT, workspace: WS });
  const send = (length: number) => sendText(String(length));

  expectRefused(t, await seen(g, key, await send(MAX_ID_LENGTH + 1)));
  expectKept(t, await seen(g, key, await send(MAX_ID_LENGTH)), 'x'.repeat(MAX_ID_LENGTH));
});

t.test("a relay agent's artifactId past 256 characters fails that turn, not the tunnel", async (t) => {
  const logs: string[] = [];
  const g = await startTestGateway({ log: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`) });
  t.teardown(() => g.close());
  const client = await connectOneAgentRelay(t, g, { workspace: WS, agent: 'ids' });
  const caller = await g.key({ workspace: WS });
  const send = () => g.rpc({ key: caller.key, method: 'message/send', path: '/api/a2a/agents/ids', params: msgB('go') });
  const artifact = (sid: number, artifactId: string) => ({
    t: 'event',
    sid,
    event: { type: 'artifact', artifact: { artifactId, name: 'report', parts: [{ kind: 'text', text: 'the report' }] } },
  });

  // two turns on the one tunnel at once: the first's agent sends an over-long id while the second is still running
  const first = send();
  const run1 = await client.next((f) => f.t === 'run');
  const second = send();
  const run2 = await client.next((f) => f.t === 'run');
  client.send({ t: 'event', sid: run2.sid, event: { type: 'status', state: 'working' } });
  client.send(artifact(run1.sid, LONG_ID));
  t.match(await client.next((f) => f.t === 'cancel'), { t: 'cancel', sid: run1.sid }, "the refused turn's local call is stopped");
  // what the relay still sends of the refused turn is dropped
  client.send({ t: 'event', sid: run1.sid, event: { type: 'status', state: 'completed' } });
  client.send({ t: 'done', sid: run1.sid });
  expectRefused(t, await seen(g, caller.key, await first));
  t.ok(
    logs.some((l) => /relay turn failed.*artifact\.artifactId: at most 256 characters/.test(l)),
    'logged, naming the field',
  );

  client.send(artifact(run2.sid, FULL_ID));
  client.send({ t: 'event', sid: run2.sid, event: { type: 'status', state: 'completed' } });
  client.send({ t: 'done', sid: run2.sid });
  expectKept(t, await seen(g, caller.key, await second), FULL_ID);
  t.equal(client.ws.readyState, client.ws.OPEN, 'the tunnel is open');
  t.notOk(
    logs.some((l) => /protocol broken/.test(l)),
    'the relay was not disconnected',
  );
});
