// A remote card's Cache-Control max-age is honoured up to a cap (maxCardTtlMs, 1 hour by default; the server's
// `connections.cardMaxTtlMs`): a year's max-age kept a card until the connection changed or the gateway restarted.
// The client's option directly, and the gateway's setting through a real gateway to a real remote (ManualClock).
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { testClient } from '../support/a2a-client.js';
import { cardServer, remoteCard } from '../support/card-server.js';
import { msgB } from '../support/gateway.js';
import { remoteStage } from '../support/remote-stage.js';

const HOUR = 3_600_000;
const none = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'none' } });
const card = (url: string, name: string) => ({ name, description: '', url, version: '1', protocolVersion: '0.3.0', capabilities: {} });

t.test('a max-age of a year keeps the card fresh for the cap, then it is read again', async (t) => {
  const s = await cardServer(t);
  let name = 'v1';
  s.route.set('/year/.well-known/agent-card.json', () => ({
    status: 200,
    headers: { 'cache-control': 'max-age=31536000' },
    body: card(`${s.url}/year/rpc`, name),
  }));
  for (const [label, capMs, opts] of [
    ['the default cap, 1 hour', HOUR, {}],
    ['a configured cap', 10 * 60_000, { maxCardTtlMs: 10 * 60_000 }],
  ] as const) {
    const before = s.seen.length;
    name = 'v1';
    const clock = new ManualClock(Date.now());
    const c = testClient({ clock, timers: clock, ...opts });
    t.teardown(() => c.close());
    t.equal((await c.discover(none(`${s.url}/year`))).card.name, 'v1');
    name = 'v2';
    clock.advance(capMs - 1);
    t.equal((await c.discover(none(`${s.url}/year`))).card.name, 'v1', `${label}: fresh until the cap`);
    t.equal(s.seen.length - before, 1);
    clock.advance(1);
    t.equal((await c.discover(none(`${s.url}/year`))).card.name, 'v2', `${label}: read again at the cap`);
    t.equal(s.seen.length - before, 2);
  }
});

t.test('a max-age under the cap is kept as it is', async (t) => {
  const s = await cardServer(t);
  s.route.set('/short/.well-known/agent-card.json', () => ({
    status: 200,
    headers: { 'cache-control': 'max-age=600' },
    body: card(`${s.url}/short/rpc`, 'x'),
  }));
  const clock = new ManualClock(Date.now());
  const c = testClient({ clock, timers: clock });
  t.teardown(() => c.close());
  await c.discover(none(`${s.url}/short`));
  clock.advance(600_000 - 1);
  await c.discover(none(`${s.url}/short`));
  t.equal(s.seen.length, 1);
  clock.advance(1);
  await c.discover(none(`${s.url}/short`));
  t.equal(s.seen.length, 2);
});

t.test('the gateway’s connections.cardMaxTtlMs caps a card’s max-age: the remote’s moved endpoint is used after the cap', async (t) => {
  const CAP = 10 * 60_000;
  const clock = new ManualClock(Date.now());
  /** where the remote's card says its JSON-RPC endpoint is: it moves to /capped/rpc2 */
  let rpcPath = '/capped/rpc';
  /** the remote's completed task, saying which endpoint answered */
  const done = (id: unknown, text: string) => ({
    status: 200,
    body: {
      jsonrpc: '2.0',
      id,
      result: { kind: 'task', id: 'r1', contextId: 'c1', status: { state: 'completed' }, artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text }] }] },
    },
  });
  const { s, ours, key } = await remoteStage(t, {
    clock,
    workspace: 'ws1',
    connections: { cardMaxTtlMs: CAP },
    remotes: [
      {
        name: 'capped',
        trust: 'execute',
        cardHeaders: { 'cache-control': 'max-age=31536000' },
        card: () => ({ ...remoteCard({ base: s.url, name: 'capped', dialect: '0.3', streaming: false }), url: `${s.url}${rpcPath}` }),
        answer: (_h, body) => done(JSON.parse(body).id, 'old endpoint'),
      },
    ],
  });
  s.route.set('/capped/rpc2', (_h, body) => done(JSON.parse(body).id, 'new endpoint'));
  const answeredBy = async () => {
    const task = (await ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId: 'capped' } }) })).json.result;
    t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
    return task?.artifacts?.[0]?.parts?.[0]?.text;
  };
  const cardReads = () => s.seen.filter((x) => x.path === '/capped/.well-known/agent-card.json').length;

  t.equal(await answeredBy(), 'old endpoint');
  t.equal(cardReads(), 1);
  rpcPath = '/capped/rpc2';
  clock.advance(CAP - 1);
  t.equal(await answeredBy(), 'old endpoint', 'fresh until the configured cap');
  t.equal(cardReads(), 1);
  clock.advance(1);
  t.equal(await answeredBy(), 'new endpoint', 'read again at the cap (10 minutes, not the default hour)');
  t.equal(cardReads(), 2);
});
