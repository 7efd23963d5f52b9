// The relay end to end when things go wrong, against the real gateway, the relay's time on a ManualClock and its
// randomness injected: a local agent down (the gateway lists it down and fails a send at once, then up again), the
// gateway stopped and restarted on its data dir and port (the relay's reconnect attempts come exactly at the delays its
// backoff draws, then it is back by itself), and the relay's key revoked (the tunnel closes, the relay says why and
// waits the long wait instead of hammering the gateway).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import t from 'tap';
import { RelayConfig } from '../../relay/config.js';
import { startRelay, type Relay } from '../../relay/relay.js';
import { backoffDelay } from '../../relay/tunnel-machine.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { callerView, registerRelay } from '../support/relay-world.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

const WS = 'ws1';
const INTERVAL_MS = 10_000;
const BASE_MS = 1_000;
/** the backoff's cap, and the wait after a refused key; backoff waits are drawn below it (full jitter) */
const CAP_MS = 4_000;
const HELD_MS = 1_000;
let dataDir: string;
let port: number;
let gw: TestGateway;
let sdk: SdkRemote;
let relay: Relay;
let relayKeyId: string;
const clock = new ManualClock();
const relayLog: string[] = [];
const gwLog: string[] = [];

/** The relay's randomness: the draws it took, each from a fixed list in turn. */
const DRAWS = [0.5, 0.9, 0.25, 0.75, 0.6, 0.3];
const drawn: number[] = [];
const random = () => {
  const r = DRAWS[drawn.length % DRAWS.length]!;
  drawn.push(r);
  return r;
};

/** The local agent can be taken down: every request's socket is destroyed (the relay's checks see a network failure). */
let down = false;
const outage: RequestHandler = (req, _res, next) => (down ? req.socket.destroy() : next());

let view: ReturnType<typeof callerView>;
const startGw = () =>
  startTestGateway({ dataDir, ...(port !== undefined && { config: { port } }), log: (msg, f) => gwLog.push(`${msg} ${JSON.stringify(f ?? {})}`) });
/** the gateway's count of tunnel upgrades it answered (accepted or refused) */
const upgrades = () => gwLog.filter((l) => l.startsWith('relay tunnel refused') || l.startsWith('relay connected')).length;

t.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'a2a-relay-faults-'));
  sdk = await startSdkRemote({ before: [outage] });
  gw = await startGw();
  port = Number(new URL(gw.url).port);
  const reg = await registerRelay(gw, { workspace: WS, agents: ['sdk-echo'] });
  relayKeyId = reg.relayKey.id;
  view = callerView({ gw: () => gw, key: reg.key });
  relay = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: reg.relayKey.key,
      gateway_url: gw.url.replace(/^http/, 'ws'),
      agents: [{ name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url }],
      health_check_interval: INTERVAL_MS / 1000,
      local_timeout_seconds: 60,
    }),
    log: (msg, f) => relayLog.push(`${msg} ${JSON.stringify(f ?? {})}`),
    clock,
    timers: clock,
    random,
    backoffBaseMs: BASE_MS,
    backoffCapMs: CAP_MS,
    heldMs: HELD_MS,
  });
  await until(async () => (await view.listed('sdk-echo'))?.health?.up === true, 'the relay agent is online and reported up');
});

t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await sdk.close();
  await rm(dataDir, { recursive: true, force: true });
});

t.test('a local agent down is listed down, and a send to it fails at once naming it; back up, sends work again', async (t) => {
  const up = await view.listed('sdk-echo');
  t.match(up, { online: true, health: { up: true } });
  t.ok(!Number.isNaN(Date.parse(up!.health!.checkedAt)), 'checkedAt is a time');

  down = true;
  clock.advance(INTERVAL_MS);
  await until(async () => (await view.listed('sdk-echo'))?.health?.up === false, 'the gateway lists the local agent down');
  const gone = await view.listed('sdk-echo');
  t.equal(gone?.online, true, 'its relay is still there');
  // a caller reads the check's kind and time, never the relay's text of it (it names the local agent's host and port)
  t.equal(gone?.health?.error, 'unreachable', "the check's kind is shown");
  t.ok(!Number.isNaN(Date.parse(gone!.health!.checkedAt)), 'and when it was reported');
  const local = new URL(sdk.url);
  t.notMatch(JSON.stringify(gone?.health), local.port, "nothing of the relay's text: not the local agent's port");
  t.notMatch(JSON.stringify(gone?.health), /cannot be reached|ECONN|socket|http/i, 'nor its words');
  const got = await gw.rpc({ method: 'agents/get', key: (await gw.key({ workspace: WS })).key, params: { id: 'sdk-echo' } });
  t.match(got.json.result, { kind: 'relay', online: true, health: { up: false, error: 'unreachable' } }, 'agents/get says so too');
  t.notMatch(JSON.stringify(got.json.result.health), local.port, 'agents/get without the text too');
  // the workspace's operator (an admin key, the dashboard's API) keeps the detail
  const admin = await gw.key({ workspace: WS, trust: 'admin' });
  const dash = (await (await fetch(`${gw.url}/api/admin/agents`, { headers: { Authorization: `Bearer ${admin.key}` } })).json()) as {
    agents: Array<{ id: string; health: { error?: string } | null }>;
  };
  const detail = dash.agents.find((a) => a.id === 'sdk-echo')?.health?.error;
  t.match(detail, local.port, `the admin API shows the relay's text: ${detail}`);

  const callsBefore = sdk.calls().length;
  const refused = await view.send('sdk-echo', 'anyone home?');
  t.equal(refused.result.status.state, 'failed', JSON.stringify(refused));
  t.equal(refused.result.status.message.metadata?.reason, 'relay_agent_down');
  t.match(refused.result.status.message.parts[0].text, /sdk-echo.*down/);
  t.equal(sdk.calls().length, callsBefore, 'the relay was not asked to call it (no wait for the local timeout)');

  down = false;
  clock.advance(INTERVAL_MS);
  await until(async () => (await view.listed('sdk-echo'))?.health?.up === true, 'listed up again');
  const ok = await view.send('sdk-echo', 'back again');
  t.equal(ok.result.status.state, 'completed', JSON.stringify(ok));
  t.equal(ok.result.artifacts[0].parts[0].text, 'back again');
});

t.test('the gateway stopped: reconnect attempts at the backoff delays; restarted on its data dir and port, the relay is back', async (t) => {
  // the connection held (HELD_MS on the relay's clock): the first failure after it starts the backoff afresh
  clock.advance(HELD_MS);
  await gw.close();
  await until(() => relay.tunnel().state === 'waiting', 'the relay saw the gateway go');
  const settings = { baseMs: BASE_MS, capMs: CAP_MS, retryAttempts: 0 };
  // each failed attempt n waits floor(draw × min(cap, base·2^(n-1))): 500, 1800, 1000 (window 4000, the cap), 3000
  for (let n = 1; n <= 4; n++) {
    const s = relay.tunnel();
    const draw = drawn.at(-1)!;
    const expected = Math.floor(draw * Math.min(CAP_MS, BASE_MS * 2 ** (n - 1)));
    t.equal(
      expected,
      backoffDelay(settings, n, () => draw),
      'the formula is the one the relay uses',
    );
    t.match(s, { state: 'waiting', failures: n, delayMs: expected, nextRetryAt: clock.now() + expected }, `attempt ${n} failed: the next in ${expected} ms`);
    t.equal(drawn.length, n, 'one draw per failure');
    if (n === 4) break;
    clock.advance(expected - 1);
    t.match(relay.tunnel(), { state: 'waiting', failures: n }, 'no attempt before its time');
    clock.advance(1);
    t.not(relay.tunnel().state, 'waiting', 'the attempt starts when its time comes');
    // the attempt is refused by the closed port; real I/O decides when the relay knows
    await until(() => relay.tunnel().failures === n + 1 && relay.tunnel().state === 'waiting', `attempt ${n + 1} failed`);
  }
  t.same(drawn, DRAWS.slice(0, 4));
  t.match(relayLog.filter((l) => l.startsWith('relay tunnel down, retrying')).length, 4, 'each failure is logged with its wait');

  // the restart takes the same port at once (its old connections' TIME-WAIT does not hold it)
  gw = await startGw();
  t.equal(Number(new URL(gw.url).port), port, 'the same port');
  const last = relay.tunnel();
  clock.advance(last.nextRetryAt! - clock.now());
  await until(async () => (await view.listed('sdk-echo'))?.online === true, 'the relay agent is online again');
  await until(async () => (await view.listed('sdk-echo'))?.health?.up === true, 'and its health is reported again');
  t.equal(relay.tunnel().state, 'session');
  const ok = await view.send('sdk-echo', 'after the restart');
  t.equal(ok.result.status.state, 'completed', JSON.stringify(ok));
  t.equal(ok.result.artifacts[0].parts[0].text, 'after the restart');
});

t.test("the relay's key revoked: the tunnel closes at once, the relay says why and waits the long wait", async (t) => {
  const rec = await gw.gw.store.keys.get(relayKeyId);
  await gw.gw.store.keys.put({ ...rec!, revokedAt: Date.now() });
  await until(async () => (await view.listed('sdk-echo'))?.online === false, 'the relay agent is offline');
  await until(() => relay.tunnel().state === 'waiting', 'the relay is waiting');
  const tunnel = relay.tunnel();
  t.match(tunnel.lastError, /key/, `the relay says why: ${tunnel.lastError}`);
  t.equal(tunnel.delayMs, CAP_MS, 'its next try is the long wait, not a quick retry');
  t.equal(tunnel.nextRetryAt, clock.now() + CAP_MS);
  t.ok(
    relayLog.some((l) => l.startsWith('relay key refused by the gateway')),
    'the relay logs it',
  );
  const seen = upgrades();
  const draws = drawn.length;
  clock.advance(CAP_MS - 1);
  t.equal(relay.tunnel().state, 'waiting', 'no attempt while it waits');
  const refused = await view.send('sdk-echo', 'anyone?');
  t.equal(refused.result.status.state, 'failed');
  t.equal(refused.result.status.message.metadata?.reason, 'relay_offline');
  t.equal(upgrades(), seen, 'the gateway saw no upgrade meanwhile');

  // the try after the long wait is refused at the upgrade: one attempt, then the long wait again
  clock.advance(1);
  await until(() => upgrades() === seen + 1 && relay.tunnel().state === 'waiting' && relay.tunnel().failures === tunnel.failures + 1, 'one more try, refused');
  t.match(relay.tunnel(), { delayMs: CAP_MS, lastError: /refused the relay's key/ });
  t.equal(drawn.length, draws, 'a refused key draws no jitter: it waits the cap');
  t.notOk(relayLog.join('\n').includes('svc_a2a_'), 'no key in the relay log');
});
