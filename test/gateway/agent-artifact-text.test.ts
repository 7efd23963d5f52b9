// Our own agents' artifact `name` and `description` are bounded as a remote agent's are (ARTIFACT_TEXT: 256 and 2,000
// code points, the last kept one `…`): a module agent's (on the worker pool) and a relay agent's (events over its
// tunnel) are cut, the turn stands, and the cut text is what the caller is answered, a later tasks/get shows and the
// stored task keeps. Only the task's size bounded them before. A real gateway on port 0, a module agent written into a
// temp dir, a relay's end of the tunnel as a real WebSocket client sending msgpack frames.
import t, { type Test } from 'tap';
import { ARTIFACT_TEXT } from '../../src/protocol/artifact-text.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startModuleAgentGateway } from '../support/module-agent.js';
import { connectOneAgentRelay } from '../support/relay-world.js';
import { taskSeen } from '../support/tasks.js';

t.setTimeout(60_000);

const WS = 'ws1';
const LONG_NAME = `${'n'.repeat(ARTIFACT_TEXT.name - 1)}😀${'x'.repeat(100_000)}`;
const LONG_DESCRIPTION = `${'d'.repeat(ARTIFACT_TEXT.description - 1)}😀${'x'.repeat(1_000_000)}`;
const CUT_NAME = `${'n'.repeat(ARTIFACT_TEXT.name - 1)}…`;
const CUT_DESCRIPTION = `${'d'.repeat(ARTIFACT_TEXT.description - 1)}…`;
// astral characters at the bounds: they count code points, not UTF-16 units
const FULL_NAME = '😀'.repeat(ARTIFACT_TEXT.name);
const FULL_DESCRIPTION = `${'d'.repeat(ARTIFACT_TEXT.description - 1)}😀`;

const TEXTS: Record<string, { name: string; description: string }> = {
  long: { name: LONG_NAME, description: LONG_DESCRIPTION },
  full: { name: FULL_NAME, description: FULL_DESCRIPTION },
};

// the module agent names its artifact as the caller's text says (`long` or `full`)
const MODULE_AGENT = `
const TEXTS = ${JSON.stringify(TEXTS)};
export default async function* (ctx) {
  const { name, description } = TEXTS[ctx.message.parts[0].text];
  yield { type: 'artifact', artifact: { name, description, parts: [{ kind: 'text', text: 'the report' }] } };
  yield { type: 'status', state: 'completed' };
}`;

/** the first artifact the caller is answered, the one a later tasks/get shows, and the one the stored task keeps */
async function seen(g: TestGateway, key: string, answer: { json: any }) {
  const { task, read, stored } = await taskSeen(g, { key, workspace: WS, answer });
  return { state: task?.status?.state, answered: task?.artifacts?.[0], read: read?.artifacts?.[0], stored: stored?.artifacts[0] };
}

function expectCut(t: Test, s: Awaited<ReturnType<typeof seen>>) {
  t.equal(s.state, 'completed', 'the turn stands');
  for (const where of ['answered', 'read', 'stored'] as const) {
    t.equal(s[where]?.name, CUT_NAME, `${where}: the name cut to ${ARTIFACT_TEXT.name} code points, … last`);
    t.equal(s[where]?.description, CUT_DESCRIPTION, `${where}: the description cut to ${ARTIFACT_TEXT.description} code points, … last`);
    t.equal(s[where]?.parts?.[0]?.text, 'the report', `${where}: the artifact's content as sent`);
  }
}

function expectKept(t: Test, s: Awaited<ReturnType<typeof seen>>) {
  t.equal(s.state, 'completed');
  for (const where of ['answered', 'read', 'stored'] as const) {
    t.equal(s[where]?.name, FULL_NAME, `${where}: a name at its bound kept as sent`);
    t.equal(s[where]?.description, FULL_DESCRIPTION, `${where}: a description at its bound kept as sent`);
  }
}

t.test("a module agent's artifact name and description", async (t) => {
  const { g, key, send } = await startModuleAgentGateway(t, {
    agent: { id: 'namer', name: 'Namer', default: true },
    source: MODULE_AGENT,
    workspace: WS,
  });

  t.test('longer than their bounds: cut', async (t) => expectCut(t, await seen(g, key, await send('long'))));
  t.test('at their bounds: kept', async (t) => expectKept(t, await seen(g, key, await send('full'))));
});

t.test("a relay agent's artifact name and description", async (t) => {
  const g = await startTestGateway();
  t.teardown(() => g.close());
  const client = await connectOneAgentRelay(t, g, { workspace: WS, agent: 'namer' });
  const caller = await g.key({ workspace: WS });

  // one turn: the caller's send, and the relay's answer to the run frame it brings
  const turn = async (texts: { name: string; description: string }) => {
    const sent = g.rpc({ key: caller.key, method: 'message/send', path: '/api/a2a/agents/namer', params: msgB('go') });
    const run = await client.next((f) => f.t === 'run');
    client.send({ t: 'event', sid: run.sid, event: { type: 'artifact', artifact: { ...texts, parts: [{ kind: 'text', text: 'the report' }] } } });
    client.send({ t: 'event', sid: run.sid, event: { type: 'status', state: 'completed' } });
    client.send({ t: 'done', sid: run.sid });
    return seen(g, caller.key, await sent);
  };

  t.test('longer than their bounds: cut, the tunnel stays open', async (t) => {
    expectCut(t, await turn(TEXTS.long!));
    t.equal(client.ws.readyState, client.ws.OPEN, 'the tunnel is open');
  });
  t.test('at their bounds: kept', async (t) => expectKept(t, await turn(TEXTS.full!)));
});
