// Behind a proxy every client arrives from the proxy's address, so the per-address failed-authentication throttle
// would block all of them for one client's guesses. With trustedProxies the client is the address the proxies put in
// X-Forwarded-For (read from the right, past trusted hops); without it, or from a peer not trusted, the header is
// ignored, so a caller cannot choose its own throttle bucket by writing one.
import t, { type Test } from 'tap';
import { ConfigError } from '../../src/config/error.js';
import { loadConfig } from '../../src/config/load.js';
import { parseConfig } from '../../src/config/parse.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const wrongKey = (c: string) => `svc_a2a_${c.repeat(43)}`;
const BUDGET = { perMinute: 3, perHour: 100 };

async function setup(t: Test, trustedProxies?: string[]) {
  const tg = await startTestGateway({ clock: new ManualClock(T0), config: { authFailures: BUDGET, ...(trustedProxies && { trustedProxies }) } });
  t.teardown(() => tg.close());
  const good = (await tg.key()).key;
  const send = (key: string, forwardedFor?: string) =>
    tg.rpc({ method: 'message/send', params: msgB('hi'), key, ...(forwardedFor !== undefined && { headers: { 'X-Forwarded-For': forwardedFor } }) });
  /** spends the budget of whoever the gateway takes this caller for, with wrong keys */
  const guess = async (forwardedFor?: string) => {
    for (let i = 0; i < BUDGET.perMinute; i++) t.equal((await send(wrongKey('x'), forwardedFor)).status, 401, 'a wrong key: 401');
  };
  return { send, guess, good };
}

t.test('behind a trusted proxy, one client guessing keys is blocked and the others behind it are not', async (t) => {
  const { send, guess, good } = await setup(t, ['127.0.0.1']);
  await guess('203.0.113.7');
  const blocked = await send(good, '203.0.113.7');
  t.equal(blocked.status, 429, 'the guessing client is blocked, even with the right key');
  t.equal(blocked.json.error?.code, -32004);
  t.equal((await send(good, '203.0.113.8')).status, 200, 'another client behind the same proxy is served');
  t.equal((await send(good)).status, 200, 'the proxy itself (no header) is its own client');
  // the client writes its own X-Forwarded-For; the proxy appends the address it saw: only that last hop counts
  t.equal((await send(good, '198.51.100.1, 203.0.113.7')).status, 429, 'a forged left part does not free the client');
});

t.test('a trusted range, and hops that are themselves trusted proxies, are passed over to the client', async (t) => {
  const { send, guess, good } = await setup(t, ['127.0.0.0/8', '10.0.0.0/8']);
  await guess('203.0.113.9, 10.1.2.3');
  t.equal((await send(good, '203.0.113.9')).status, 429, 'the client past the inner proxy 10.1.2.3 is the one counted');
  t.equal((await send(good, '10.1.2.3')).status, 200, 'the inner proxy itself was never blamed');
});

t.test('without trustedProxies, X-Forwarded-For is ignored: a caller cannot pick a fresh bucket', async (t) => {
  const { send, guess, good } = await setup(t);
  await guess('203.0.113.7');
  t.equal((await send(good, '203.0.113.99')).status, 429, 'another forwarded address does not escape the block');
  t.equal((await send(good)).status, 429, 'the peer itself was counted');
});

t.test('a peer that is not a trusted proxy cannot speak for others', async (t) => {
  const { send, guess, good } = await setup(t, ['192.0.2.10']);
  await guess('203.0.113.7');
  t.equal((await send(good, '203.0.113.8')).status, 429, 'the header of an untrusted peer is not read');
});

t.test('the setting: a list or comma-separated text (A2A_TRUSTED_PROXIES); a bad entry is refused naming it', async (t) => {
  t.strictSame(parseConfig({ trustedProxies: ['10.0.0.0/8', '::1'] }).trustedProxies, ['10.0.0.0/8', '::1']);
  t.strictSame(parseConfig({}).trustedProxies, [], 'none by default');
  const fromEnv = await loadConfig({ env: { A2A_TRUSTED_PROXIES: '10.0.0.1, 172.16.0.0/12' }, flags: {} });
  t.strictSame(fromEnv.trustedProxies, ['10.0.0.1', '172.16.0.0/12']);
  for (const bad of [['proxy.local'], ['10.0.0.0/33'], ['10.0.0.1/8/1']]) {
    t.throws(() => parseConfig({ trustedProxies: bad }), /trustedProxies/, `refused: ${bad[0]}`);
  }
  await t.rejects(loadConfig({ env: { A2A_TRUSTED_PROXIES: '10.0.0.1,nope' }, flags: {} }), ConfigError);
});
