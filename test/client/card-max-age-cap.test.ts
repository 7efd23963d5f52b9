// A remote card's Cache-Control max-age is honoured up to a cap (maxCardTtlMs, 1 hour by default; the server's
// `connections.cardMaxTtlMs`): a year's max-age kept a card until the connection changed or the gateway restarted.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { testClient } from '../support/a2a-client.js';
import { cardServer } from '../support/card-server.js';

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
