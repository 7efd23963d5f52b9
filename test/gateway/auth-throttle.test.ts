// Failed authentications per client address on the A2A endpoint and the relay tunnel: past the budget an address is
// answered 429 with Retry-After whatever key it presents (the right one too), until the window frees.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { parseConfig } from '../../src/config/parse.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { openTunnel } from '../support/tunnel-client.js';

t.setTimeout(60_000);

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
/** a key of the right shape that no one holds */
const wrongKey = (c: string) => `a2a_${c.repeat(40)}`;

async function setup(t: Test, authFailures?: { perMinute: number; perHour: number }) {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, config: authFailures ? { authFailures } : {} });
  t.teardown(() => tg.close());
  const send = (key: string | undefined, authorization?: string) =>
    tg.rpc({
      method: 'message/send',
      params: msgB('hi'),
      ...(key !== undefined && { key }),
      ...(authorization && { headers: { Authorization: authorization } }),
    });
  const relayKey = async () => {
    const k = await tg.key({ workspace: 'ws1', trust: 'execute' });
    await addRelay({ relays: tg.gw.store.relays, keys: tg.gw.store.keys, clock }, { workspace: 'ws1', name: 'home', key: k.id });
    return k;
  };
  const tunnelStatus = async (key: string) => {
    const u = await openTunnel({ url: tg.url, key });
    if (u.ok) {
      u.client.close();
      return { status: 101, body: '' };
    }
    return u;
  };
  return { clock, tg, send, relayKey, tunnelStatus };
}

/** message/send from another loopback source address (127.0.0.2): another client. */
function sendFrom127002(url: string, key: string): Promise<number> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: msgB('from elsewhere') });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: 'POST',
        path: '/api/a2a',
        localAddress: '127.0.0.2',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

t.test('failed A2A authentications are throttled per address: 429 with Retry-After, the right key refused too', async (t) => {
  const { clock, tg, send, relayKey, tunnelStatus } = await setup(t, { perMinute: 3, perHour: 100 });
  const good = await tg.key({ workspace: 'ws1', trust: 'execute' });
  const expired = await tg.key({ workspace: 'ws1', trust: 'execute', expiresAt: T0 + 1 });
  clock.advance(1); // now it has expired
  const relay = await relayKey();

  t.equal((await send(good.key)).status, 200, 'the right key works');
  t.equal((await send(wrongKey('x'))).status, 401, 'an unknown key: 401');
  t.equal((await send(undefined, 'Basic Zm9vOmJhcg==')).status, 401, 'a malformed header: 401');
  t.equal((await send(expired.key)).status, 401, 'an expired key: 401');
  t.equal((await send(undefined)).status, 401, 'no key at all: 401, and no guess');

  const refused = await send(wrongKey('y'));
  t.equal(refused.status, 429, 'the fourth failure in the minute: 429');
  t.equal(refused.json.error?.code, -32004, 'the JSON-RPC rate-limit error');
  t.match(refused.json.error?.message, /failed authentications/);
  t.equal(refused.headers.get('retry-after'), '60', 'Retry-After: when the oldest failure leaves the window');
  t.notOk(refused.headers.get('www-authenticate'), 'no 401 challenge: nothing says whether the key was right');

  const lucky = await send(good.key);
  t.equal(lucky.status, 429, 'the right key from the blocked address is refused like a wrong one');
  t.same(lucky.json.error, refused.json.error, 'the same answer');
  const tunnel = await tunnelStatus(relay.key);
  t.equal(tunnel.status, 429, "the relay tunnel's upgrade is refused from the blocked address, its right key too");
  t.match(tunnel.body, /rate_limited/);
  t.equal(await sendFrom127002(tg.url, good.key), 200, 'another address is not blocked');

  clock.advance(59_999);
  t.equal((await send(good.key)).status, 429, 'still refused 1 ms before the window frees');
  clock.advance(1);
  t.equal((await send(good.key)).status, 200, 'the right key works again once the oldest failure left the window');
  t.equal((await tunnelStatus(relay.key)).status, 101, 'and opens the tunnel again');
});

t.test("wrong keys on the relay tunnel's upgrade count against the address, the A2A endpoint's budget", async (t) => {
  const { tg, send, relayKey, tunnelStatus } = await setup(t, { perMinute: 2, perHour: 100 });
  const relay = await relayKey();
  const good = await tg.key({ workspace: 'ws1', trust: 'execute' });
  t.equal((await tunnelStatus(wrongKey('x'))).status, 401);
  t.equal((await tunnelStatus(wrongKey('y'))).status, 401);
  const third = await openTunnel({ url: tg.url, key: wrongKey('z') });
  t.notOk(third.ok);
  if (!third.ok) {
    t.equal(third.status, 429, 'the third failure: 429');
    t.match(JSON.parse(third.body), { error: 'rate_limited', message: /failed authentications/ });
    t.equal(third.headers['retry-after'], '60', 'with Retry-After');
    t.notOk(third.headers['www-authenticate'], 'and no Bearer challenge');
  }
  t.equal((await tunnelStatus(relay.key)).status, 429, 'the relay key itself is refused from that address');
  t.equal((await send(good.key)).status, 429, 'and so is an A2A call with a right key');
});

t.test('the default budget lets ordinary mistakes through: a few wrong keys never block the address', async (t) => {
  t.same(parseConfig({}).authFailures, { perMinute: 60, perHour: 3600 }, 'the defaults');
  const { tg, send } = await setup(t);
  const good = await tg.key({ workspace: 'ws1', trust: 'execute' });
  for (let i = 0; i < 20; i++) t.equal((await send(`a2a_wrong${i}`)).status, 401);
  t.equal((await send(good.key)).status, 200, 'twenty wrong keys in a minute leave the right one working');
});

t.test('on Redis the budget is shared: failures on one instance block the address on another', async (t) => {
  const [a, b] = await startPair(t, { name: 'auth-throttle', settings: { authFailures: { perMinute: 2, perHour: 100 } } });
  const good = await a.key({ workspace: 'ws1', trust: 'execute' });
  t.equal((await b.rpc({ method: 'message/send', key: good.key, params: msgB('hi') })).status, 200, 'the right key works on B');
  for (const g of [a, a]) t.equal((await g.rpc({ method: 'message/send', key: wrongKey('x'), params: msgB('hi') })).status, 401);
  const refused = await b.rpc({ method: 'message/send', key: good.key, params: msgB('hi') });
  t.equal(refused.status, 429, "A's failures block the address on B, its right key too");
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After');
});
