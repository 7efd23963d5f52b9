// The relay's supervised actors against the real gateway, the relay's time on a ManualClock: a local agent's health actor
// that crashes is restarted and reports health again while the tunnel serves turns and the other agent's actor goes on;
// one crashing on every start is restarted at a bounded rate (the rest waits for the window); the tunnel's own actor
// crashing as a session ends is restarted, and the relay is back. Crashes come from the relay's documented fault hooks
// (a check's result or a session's end taken in by a throwing actor): nothing a local agent sends can make a check throw.
import type { RequestHandler } from 'express';
import t from 'tap';
import { RelayConfig } from '../../relay/config.js';
import { startRelay, type Relay } from '../../relay/relay.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { addRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { until } from '../support/a2a-client.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

const WS = 'ws1';
const INTERVAL_MS = 10_000;
const MAX_RESTARTS = 3;
const WINDOW_MS = 30_000;
/**
 * No pong for this long ends a session. Longer than any stretch the tests move the clock between real waits (pongs
 * stamped late on a loaded machine must not end a session early); the tunnel test jumps past it on purpose.
 */
const PONG_TIMEOUT_MS = 120_000;
let gw: TestGateway;
let sdk: SdkRemote;
let relay: Relay;
let key: string;
const clock = new ManualClock();
const relayLog: Array<{ msg: string; f: Record<string, unknown> }> = [];

/** The local agent can be taken down: every request's socket is destroyed. */
let down = false;
const outage: RequestHandler = (req, _res, next) => (down ? req.socket.destroy() : next());
/** how many of sdk-echo's next check results crash its actor; how many of the next session ends crash the tunnel's */
let healthCrashes = 0;
let tunnelCrashes = 0;

type Listed = { id: string; online?: boolean; health?: { up: boolean } };
const listed = async (id: string): Promise<Listed | undefined> =>
  ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Listed[]).find((a) => a.id === id);
const send = async (agentId: string, text: string) => (await gw.rpc({ method: 'message/send', key, params: msgB(text, { metadata: { agentId } }) })).json;
const logged = (msg: string, actor: string) => relayLog.filter((l) => l.msg === msg && l.f.actor === actor);

t.before(async () => {
  sdk = await startSdkRemote({ before: [outage] });
  gw = await startTestGateway();
  const relayKey = await gw.key({ workspace: WS, trust: 'execute' });
  key = (await gw.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } };
  await addRelay(deps, { workspace: WS, name: 'office', key: relayKey.id });
  for (const agent of ['sdk-echo', 'twin']) await setRelayAgent(deps, { workspace: WS, name: 'office', agent, trust: 'admin' });
  relay = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: relayKey.key,
      gateway_url: gw.url.replace(/^http/, 'ws'),
      // two agents on the same local server: only sdk-echo's actor is made to crash
      agents: [
        { name: 'sdk-echo', local_url: sdk.url },
        { name: 'twin', local_url: sdk.url },
      ],
      health_check_interval: INTERVAL_MS / 1000,
    }),
    log: (msg, f) => relayLog.push({ msg, f: f ?? {} }),
    clock,
    timers: clock,
    random: () => 0.5,
    pongTimeoutMs: PONG_TIMEOUT_MS,
    maxRestarts: MAX_RESTARTS,
    restartWindowMs: WINDOW_MS,
    faults: {
      health: (agent) => {
        if (agent === 'sdk-echo' && healthCrashes > 0) {
          healthCrashes--;
          throw new Error('injected: the health actor took a result badly');
        }
      },
      tunnel: () => {
        if (tunnelCrashes > 0) {
          tunnelCrashes--;
          throw new Error('injected: the tunnel actor took a session end badly');
        }
      },
    },
  });
  await until(async () => (await listed('sdk-echo'))?.health?.up === true && (await listed('twin'))?.health?.up === true, 'both agents reported up');
});

t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await sdk.close();
});

t.test('a crashed health actor is restarted and reports health again; the tunnel and the other actor go on', async (t) => {
  const twinChecks = sdk.cardFetches().length;
  healthCrashes = 1;
  clock.advance(INTERVAL_MS);
  await until(() => relay.health.restarts()['sdk-echo'] === 1, 'the health actor of sdk-echo is restarted');
  t.equal(healthCrashes, 0, 'its check result crashed it');
  t.match(logged('relay actor crashed, restarting it', 'health sdk-echo'), [{ f: { error: /injected/, restarts: 1 } }], 'the crash is logged');
  t.same(relay.health.restarts(), { 'sdk-echo': 1, twin: 0 }, "the other agent's actor was not touched");

  const ok = await send('sdk-echo', 'while its health restarts');
  t.equal(ok.result.status.state, 'completed', `the tunnel serves turns meanwhile: ${JSON.stringify(ok)}`);
  t.equal(ok.result.artifacts[0].parts[0].text, 'while its health restarts');

  // the restarted actor checks at once and then on the interval: the local agent going down is reported
  await until(() => relay.health.rounds() >= 2, 'the restarted actor has checked');
  down = true;
  clock.advance(INTERVAL_MS);
  await until(async () => (await listed('sdk-echo'))?.health?.up === false, 'the restarted actor reports sdk-echo down');
  await until(async () => (await listed('twin'))?.health?.up === false, 'the untouched actor reports twin down');
  t.ok(sdk.cardFetches().length > twinChecks, 'the cards were read');
  down = false;
  clock.advance(INTERVAL_MS);
  await until(async () => (await listed('sdk-echo'))?.health?.up === true, 'and up again');
  t.equal(relay.health.restarts()['sdk-echo'], 1, 'no other crash');
});

t.test('an actor crashing on every start is restarted at most MAX_RESTARTS times in the window, then waits', async (t) => {
  // the window of the first test's restart passes
  clock.advance(WINDOW_MS);
  await until(() => relay.health.restarts()['sdk-echo'] === 1 && relay.health.rounds() >= 5, 'quiet rounds');
  const before = relayLog.length;
  healthCrashes = Number.POSITIVE_INFINITY;
  clock.advance(INTERVAL_MS);
  await until(() => relayLog.slice(before).some((l) => l.msg === 'relay actor crashed too often, restart delayed'), 'the supervisor holds back');
  t.equal(relay.health.restarts()['sdk-echo'], 1 + MAX_RESTARTS, 'restarted MAX_RESTARTS times at once, no more');
  const held = relayLog.slice(before).find((l) => l.msg === 'relay actor crashed too often, restart delayed');
  t.match(held?.f, { actor: 'health sdk-echo', max_restarts: MAX_RESTARTS, window_ms: WINDOW_MS, retry_in_ms: WINDOW_MS });

  const ok = await send('twin', 'while sdk-echo is held back');
  t.equal(ok.result.status.state, 'completed', `the relay serves on: ${JSON.stringify(ok)}`);
  t.equal(relay.tunnel().state, 'session', 'the tunnel is untouched');

  clock.advance(WINDOW_MS - 1);
  t.equal(relay.health.restarts()['sdk-echo'], 1 + MAX_RESTARTS, 'no restart before the window lets it');
  healthCrashes = 0;
  down = true;
  clock.advance(1);
  t.equal(relay.health.restarts()['sdk-echo'], 2 + MAX_RESTARTS, 'restarted when the window lets it');
  await until(async () => (await listed('sdk-echo'))?.health?.up === false, 'the restarted actor reports again');
  down = false;
  clock.advance(INTERVAL_MS);
  await until(async () => (await listed('sdk-echo'))?.health?.up === true, 'and up again');
});

t.test("the tunnel's actor crashing as a session ends is restarted: the relay is back and serves", async (t) => {
  const checks = relay.health.rounds();
  tunnelCrashes = 1;
  // no pong for longer than the timeout (the gateway's pongs cannot come within one synchronous advance): the session ends
  clock.advance(PONG_TIMEOUT_MS + 30_000);
  await until(() => relay.tunnel().restarts === 1, 'the tunnel actor is restarted');
  t.equal(tunnelCrashes, 0, 'the session end crashed it');
  t.match(logged('relay actor crashed, restarting it', 'tunnel'), [{ f: { error: /injected/ } }], 'the crash is logged');
  await until(async () => (await listed('sdk-echo'))?.online === true && relay.tunnel().upSince !== undefined, 'the fresh tunnel is up');
  const ok = await send('sdk-echo', 'after the tunnel restart');
  t.equal(ok.result.status.state, 'completed', JSON.stringify(ok));
  t.equal(ok.result.artifacts[0].parts[0].text, 'after the tunnel restart');
  t.ok(relay.health.rounds() > checks, 'the health actors went on checking');
  t.same(relay.health.restarts(), { 'sdk-echo': 2 + MAX_RESTARTS, twin: 0 }, 'and were not restarted');
});
