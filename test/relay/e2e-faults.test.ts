// The relay end to end when things go wrong: a local agent down (the gateway lists it down and fails a send at once,
// then up again), the gateway restarted on its data dir and port (the relay comes back by itself), and the relay's key
// revoked (the tunnel closes, the relay says why and waits the long wait instead of hammering the gateway).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import t from 'tap';
import { RelayConfig } from '../../relay/config.js';
import { startRelay, type Relay } from '../../relay/relay.js';
import { addRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { until } from '../support/a2a-client.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

// the restart waits out the kernel's TIME-WAIT on the old port (about 60 s): more than the suite's default per file
t.setTimeout(300_000);

const WS = 'ws1';
/** the backoff's cap, and the wait after a refused key; backoff waits are drawn below it (full jitter) */
const CAP_MS = 2_000;
let dataDir: string;
let port: number;
let gw: TestGateway;
let sdk: SdkRemote;
let relay: Relay;
let key: string;
let relayKeyId: string;
const relayLog: string[] = [];
const gwLog: string[] = [];

/** The local agent can be taken down: every request's socket is destroyed (the relay's checks see a network failure). */
let down = false;
const outage: RequestHandler = (req, _res, next) => (down ? req.socket.destroy() : next());

type Listed = { id: string; online?: boolean; health?: { up: boolean; checkedAt: string; error?: string } };
const listed = async (id: string): Promise<Listed | undefined> =>
  ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Listed[]).find((a) => a.id === id);
const send = async (text: string) => (await gw.rpc({ method: 'message/send', key, params: msgB(text, { metadata: { agentId: 'sdk-echo' } }) })).json;
const startGw = () =>
  startTestGateway({ dataDir, ...(port !== undefined && { config: { port } }), log: (msg, f) => gwLog.push(`${msg} ${JSON.stringify(f ?? {})}`) });

const portFree = (p: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port: p, exclusive: true }, () => probe.close(() => resolve(true)));
  });

/**
 * The old gateway's closed connections sit in TIME-WAIT on its port, and uWS's exclusive listening socket was not
 * SO_REUSEADDR, so the port stays taken for the kernel's TIME-WAIT (60 s on Linux): the restart waits that out.
 */
const untilPortFree = async (p: number) => {
  const end = Date.now() + 120_000;
  while (!(await portFree(p))) {
    if (Date.now() > end) throw new Error(`port ${p} still taken`);
    await new Promise((r) => setTimeout(r, 500));
  }
};

t.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'a2a-relay-faults-'));
  sdk = await startSdkRemote({ before: [outage] });
  gw = await startGw();
  port = Number(new URL(gw.url).port);
  const relayKey = await gw.key({ workspace: WS, trust: 'execute' });
  relayKeyId = relayKey.id;
  key = (await gw.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } };
  await addRelay(deps, { workspace: WS, name: 'office', key: relayKey.id });
  await setRelayAgent(deps, { workspace: WS, name: 'office', agent: 'sdk-echo', trust: 'admin' });
  relay = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: relayKey.key,
      gateway_url: gw.url.replace(/^http/, 'ws'),
      agents: [{ name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url }],
      health_check_interval: 0.2,
      local_timeout_seconds: 60,
    }),
    log: (msg, f) => relayLog.push(`${msg} ${JSON.stringify(f ?? {})}`),
    // quick retries after a drop (the restarted gateway is found within the cap); a refused key waits the whole cap
    backoffBaseMs: 50,
    backoffCapMs: CAP_MS,
    heldMs: 100,
  });
  await until(async () => (await listed('sdk-echo'))?.health?.up === true, 'the relay agent is online and reported up');
});

t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await sdk.close();
  await rm(dataDir, { recursive: true, force: true });
});

t.test('a local agent down is listed down, and a send to it fails at once naming it; back up, sends work again', async (t) => {
  const up = await listed('sdk-echo');
  t.match(up, { online: true, health: { up: true } });
  t.ok(!Number.isNaN(Date.parse(up!.health!.checkedAt)), 'checkedAt is a time');

  down = true;
  await until(async () => (await listed('sdk-echo'))?.health?.up === false, 'the gateway lists the local agent down');
  const gone = await listed('sdk-echo');
  t.equal(gone?.online, true, 'its relay is still there');
  t.ok(gone?.health?.error, `the check's error is shown: ${gone?.health?.error}`);
  const got = await gw.rpc({ method: 'agents/get', key, params: { id: 'sdk-echo' } });
  t.match(got.json.result, { kind: 'relay', online: true, health: { up: false } }, 'agents/get says so too');

  const callsBefore = sdk.calls().length;
  const refused = await send('anyone home?');
  t.equal(refused.result.status.state, 'failed', JSON.stringify(refused));
  t.equal(refused.result.status.message.metadata?.reason, 'relay_agent_down');
  t.match(refused.result.status.message.parts[0].text, /sdk-echo.*down/);
  t.equal(sdk.calls().length, callsBefore, 'the relay was not asked to call it (no wait for the local timeout)');

  down = false;
  await until(async () => (await listed('sdk-echo'))?.health?.up === true, 'listed up again');
  const ok = await send('back again');
  t.equal(ok.result.status.state, 'completed', JSON.stringify(ok));
  t.equal(ok.result.artifacts[0].parts[0].text, 'back again');
});

t.test('the gateway restarted on its data dir and port: the relay reconnects by itself and its agent works', async (t) => {
  await gw.close();
  await until(async () => relay.tunnel().state === 'waiting' || relay.tunnel().upSince === undefined, 'the relay saw the gateway go');
  // uWS lets go of its listening socket a moment after close: the restart waits until the port is free
  await untilPortFree(port);
  gw = await startGw();
  t.equal(Number(new URL(gw.url).port), port, 'the same port');
  await until(async () => (await listed('sdk-echo'))?.online === true, 'the relay agent is online again');
  await until(async () => (await listed('sdk-echo'))?.health?.up === true, 'and its health is reported again');
  const ok = await send('after the restart');
  t.equal(ok.result.status.state, 'completed', JSON.stringify(ok));
  t.equal(ok.result.artifacts[0].parts[0].text, 'after the restart');
});

t.test("the relay's key revoked: the tunnel closes at once, the relay says why and waits the long wait", async (t) => {
  const attempts = () => gwLog.filter((l) => l.startsWith('relay tunnel refused') || l.startsWith('relay connected')).length;
  const rec = await gw.gw.store.keys.get(relayKeyId);
  await gw.gw.store.keys.put({ ...rec!, revokedAt: Date.now() });
  await until(async () => (await listed('sdk-echo'))?.online === false, 'the relay agent is offline');
  await until(async () => relay.tunnel().state === 'waiting', 'the relay is waiting');
  const tunnel = relay.tunnel();
  t.match(tunnel.lastError, /key/, `the relay says why: ${tunnel.lastError}`);
  t.equal(tunnel.delayMs, CAP_MS, 'its next try is the long wait, not a quick retry');
  t.ok(
    relayLog.some((l) => l.startsWith('relay key refused by the gateway')),
    'the relay logs it',
  );
  const seen = attempts();
  await new Promise((r) => setTimeout(r, CAP_MS / 2));
  t.equal(attempts(), seen, 'no upgrade attempt while it waits');
  const refused = await send('anyone?');
  t.equal(refused.result.status.state, 'failed');
  t.equal(refused.result.status.message.metadata?.reason, 'relay_offline');
  t.notOk(relayLog.join('\n').includes('svc_a2a_'), 'no key in the relay log');
});
