// A relay's announced cards are bounded at the gateway: a relay of an older version announces its local agent's skills
// as written (any length, more than 100). The gateway cuts them to the cards' bounds and logs what it cut; the agent is
// announced, listed and reachable, never the whole relay refused. A real gateway on port 0, relays as real WebSocket
// clients sending msgpack frames.
import t, { type Test } from 'tap';
import { CARD_BOUNDS, SKILL_BOUNDS } from '../../src/protocol/relay-card-bounds.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { startTestGateway } from '../support/gateway.js';
import { connectRelay, echoTurns } from '../support/tunnel-client.js';

t.setTimeout(60_000);

async function setup(t: Test) {
  const logs: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const g = await startTestGateway({ log: (msg, fields) => logs.push({ msg, fields }) });
  t.teardown(() => g.close());
  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home', key: k.id });
  const caller = await g.key({ workspace: 'ws1' });
  const listed = async (id: string) => ((await g.rpc({ method: 'agents/list', key: caller.key })).json.result.agents as any[]).find((a) => a.id === id);
  return { g, logs, key: k.key, caller, listed };
}

type Skill = { id: string; name: string; description: string; tags?: string[]; examples?: string[] };
const within = (s: Skill) =>
  [...s.id].length <= SKILL_BOUNDS.id &&
  [...s.name].length <= SKILL_BOUNDS.name &&
  [...s.description].length <= SKILL_BOUNDS.description &&
  (s.tags ?? []).length <= SKILL_BOUNDS.entries &&
  (s.tags ?? []).every((e) => [...e].length <= SKILL_BOUNDS.entry) &&
  (s.examples ?? []).every((e) => [...e].length <= SKILL_BOUNDS.entry);

t.test("an older relay's long skills: cut, logged, the agent announced and reachable", async (t) => {
  const s = await setup(t);
  const long = {
    id: `long-${'i'.repeat(1_000)}`,
    name: `Long ${'n'.repeat(1_000)}`,
    description: `${'😀'.repeat(50_000)}`,
    tags: Array.from({ length: 100 }, (_, i) => `tag-${i}-${'t'.repeat(1_000)}`),
    examples: [`an example ${'e'.repeat(5_000)}`],
  };
  const agents = [
    { name: 'wordy', description: 'a local agent', skills: [long, { id: 'short', name: 'Short', description: 'fits' }], streaming: false },
    { name: 'plain', description: 'fits', skills: [{ id: 'p', name: 'P', description: 'fits' }], streaming: false },
  ];
  const { client, answer } = await connectRelay({ url: s.g.url, key: s.key, workspace: 'ws1', agents });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome', agents: [{ name: 'wordy' }, { name: 'plain' }] }, 'welcomed with both agents');
  echoTurns(client);

  const wordy = await s.listed('wordy');
  t.equal(wordy?.online, true, 'listed online');
  t.equal(wordy.skills.length, 2, 'both skills kept');
  t.ok(wordy.skills.every(within), 'each within the bounds');
  t.equal(wordy.skills[0].description, `${'😀'.repeat(SKILL_BOUNDS.description - 1)}…`, 'cut on a character, with an ellipsis');
  t.same(wordy.skills[1], { id: 'short', name: 'Short', description: 'fits' }, 'a skill within the bounds is as sent');
  const stored = await s.g.gw.store.relays.get('ws1', 'home');
  t.ok(stored?.agents.wordy?.card?.skills.every(within), 'the stored record keeps the cut card');
  t.same(await s.listed('plain').then((a) => a.skills), [{ id: 'p', name: 'P', description: 'fits' }]);

  const cut = s.logs.filter((l) => l.msg === 'relay agent card cut to its bounds');
  t.equal(cut.length, 1, 'one log line, for the agent cut only');
  t.match(cut[0]?.fields, { workspace: 'ws1', relay: 'home', agent: 'wordy', cut: /skill fields cut/ }, 'naming the agent and what was cut');

  const sent = await s.g.rpc({
    method: 'message/send',
    path: '/api/a2a/agents/wordy',
    key: s.caller.key,
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } },
  });
  t.equal(sent.json.result?.status?.state, 'completed', 'the agent is reachable');
});

t.test('more than 100 skills, or a description past 2,000: the first 100 kept and the description cut, not a refusal', async (t) => {
  const s = await setup(t);
  const skills = Array.from({ length: 150 }, (_, i) => ({ id: `s${i}`, name: `Skill ${i}`, description: 'fits' }));
  const { client, answer } = await connectRelay({
    url: s.g.url,
    key: s.key,
    workspace: 'ws1',
    agents: [{ name: 'many', description: 'd'.repeat(5_000), skills, streaming: false }],
  });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome', agents: [{ name: 'many' }] }, 'the relay is welcomed, not disconnected');
  const many = await s.listed('many');
  t.equal(many?.online, true);
  t.equal(many.skills.length, CARD_BOUNDS.skills, 'the first 100 skills');
  t.equal(many.skills[99].id, 's99');
  t.equal([...many.description].length, CARD_BOUNDS.description, 'the description cut');
  t.match(s.logs.find((l) => l.msg === 'relay agent card cut to its bounds')?.fields, {
    agent: 'many',
    cut: /description cut to 2000 characters; 50 skills past the first 100 dropped/,
  });
});
