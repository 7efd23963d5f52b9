// A connection's credentials go only to the origin of its URL (or one the operator allowed on it), by real node:http
// remotes on loopback: a card that names a JSON-RPC endpoint on another port is another origin. Before, every call
// went wherever the card said, with our bearer token: a hostile or compromised card collected it.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { type Answer, cardServer, type CardServer, remoteCard, type Dialect, sseAnswer } from '../support/card-server.js';
import type { TestGateway } from '../support/gateway.js';
import { dialectRemotes, remoteStage, sendGo } from '../support/remote-stage.js';

const WS = 'ws1';
const TOKEN = 'tok-origin-secret-5f1e';
const bearer = { kind: 'bearer' as const, token: TOKEN };

let s: CardServer;
/** the other origin: another port on loopback */
let away: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** where the card of `moving` names its endpoint now */
let movingBase = '';

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const task =
    dialect === '0.3'
      ? { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } }
      : { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };
  if (!/stream/i.test(req.method)) return { status: 200, body: { jsonrpc: '2.0', id: req.id, result: task } };
  return sseAnswer(req.id, [task]);
}

/** Remotes whose card is on `s` and whose JSON-RPC endpoint is on `away` (`moving`: where movingBase says). */
const REMOTES: Array<{ name: string; dialect: Dialect; streaming: boolean; credentials?: typeof bearer; allowed?: boolean }> = [
  { name: 'away03', dialect: '0.3', streaming: false, credentials: bearer },
  { name: 'away10', dialect: '1.0', streaming: true, credentials: bearer },
  { name: 'allowed03', dialect: '0.3', streaming: false, credentials: bearer, allowed: true },
  { name: 'open03', dialect: '0.3', streaming: false },
];

t.before(async () => {
  away = await cardServer(t);
  for (const r of [...REMOTES, { name: 'moving', dialect: '0.3' as Dialect }])
    away.route.set(`/${r.name}/rpc`, (_h, body) => answer(r.dialect, JSON.parse(body)));
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [
      ...dialectRemotes(REMOTES, {
        base: () => away.url,
        answer: (r, req) => answer(r.dialect, req),
        settings: (r) => ({ ...(r.credentials && { credentials: r.credentials }), ...(r.allowed && { allowedOrigins: [away.url] }) }),
      }),
      {
        name: 'moving',
        card: () => remoteCard({ base: movingBase, name: 'moving', dialect: '0.3', streaming: false }),
        answer: (_h: unknown, body: string) => answer('0.3', JSON.parse(body)),
        credentials: bearer,
      },
    ],
  }));
  movingBase = s.url;
});

const send = (agentId: string, extra?: Record<string, unknown>) => sendGo({ ours, key }, agentId, extra);
const awayCalls = (name: string) => away.seen.filter((q) => q.path.startsWith(`/${name}/`));
const refusal = (name: string, url: string) =>
  `the remote's Agent Card names url '${url}', on another origin than ${s.url}, where connection '${name}' sends its bearer credentials: nothing was sent (to call it anyway: connections update ${name} --allow-origins ${away.url})`;

for (const r of REMOTES.filter((x) => x.credentials && !x.allowed)) {
  t.test(`${r.dialect}${r.streaming ? ' streamed' : ''}: a card naming another origin is refused; nothing reaches it`, async (t) => {
    const task = await send(r.name);
    t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 300));
    t.equal(task?.status?.message?.parts?.[0]?.text, refusal(r.name, `${away.url}/${r.name}/rpc`));
    t.same(awayCalls(r.name), [], 'the other origin saw no request');
    t.ok(
      s.seen.filter((q) => q.path.startsWith(`/${r.name}/`)).every((q) => q.method === 'GET' && q.path.endsWith('agent-card.json')),
      'the connection origin was asked for its card only',
    );
    // the refusal is no sign of an unwell remote: the connection stays ready, and refuses again the same way
    t.equal((await send(r.name))?.status?.message?.parts?.[0]?.text, refusal(r.name, `${away.url}/${r.name}/rpc`));
    // `connections status` says why, without counting it
    await until(async () => (await ours.gw.store.connections.getStatus(WS, r.name))?.lastError !== undefined, 'the status to name the refusal');
    t.match(await ours.gw.store.connections.getStatus(WS, r.name), {
      state: 'ready',
      failures: 0,
      lastError: `${refusal(r.name, `${away.url}/${r.name}/rpc`)} (origin_refused)`,
    });
  });
}

t.test('an origin the connection allows is called, with the credentials', async (t) => {
  const task = await send('allowed03');
  t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
  const calls = awayCalls('allowed03');
  t.equal(calls.length, 1);
  t.equal(calls[0]?.headers.authorization, `Bearer ${TOKEN}`);
});

t.test('a connection without credentials follows its card as before', async (t) => {
  const task = await send('open03');
  t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
  t.equal(awayCalls('open03').length, 1);
  t.equal(awayCalls('open03')[0]?.headers.authorization, undefined);
});

t.test('a card that moves its endpoint to another origin between calls is refused from then on', async (t) => {
  t.equal((await send('moving'))?.status?.state, 'completed', 'on its own origin: called');
  t.equal(s.seen.filter((q) => q.path === '/moving/rpc').length, 1);
  movingBase = away.url;
  // past the card's freshness (5 minutes by default): the next call reads it again
  clock.advance(5 * 60_000 + 1);
  const task = await send('moving');
  t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 300));
  t.equal(task?.status?.message?.parts?.[0]?.text, refusal('moving', `${away.url}/moving/rpc`));
  t.same(awayCalls('moving'), [], 'the other origin saw no request');
});
