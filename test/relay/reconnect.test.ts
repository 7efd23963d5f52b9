// The relay's reconnects on a ManualClock with fixed randomness, against a stand-in gateway end (the real endpoint is
// being built in parallel): exponential backoff with full jitter, reset after a connection that held; a refused key
// waits the cap instead of hammering; retry_attempts spent ends the relay with a clear message (the exported function
// and the real `a2a-relay` binary, whose exit code says so). Each run puts its admin UI on a free port (SVC_ADMIN_PORT=0).
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRelayCli } from '../../relay/cli.js';
import { parseRelayConfig } from '../../relay/config.js';
import { type Relay, startRelay } from '../../relay/relay.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { makeCerts } from '../support/certs.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { startStandInGateway } from '../support/tunnel-gateway.js';

const KEY = 'relay-key-Rc9vT2mWq';
let sdk: SdkRemote;

t.before(async () => {
  sdk = await startSdkRemote();
});
t.teardown(() => sdk.close());

/** a loopback port nothing listens on */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const config = (gatewayUrl: string, extra: Record<string, unknown> = {}) =>
  parseRelayConfig({
    text: JSON.stringify({
      workspace_id: 'ws1',
      api_key: KEY,
      gateway_url: gatewayUrl,
      health_check_interval: 3600,
      agents: [{ name: 'echo', local_url: sdk.url }],
      ...extra,
    }),
  });

async function waiting(relay: Relay) {
  await until(() => relay.tunnel().state === 'waiting' || relay.tunnel().state === 'spent', 'the tunnel waits to retry');
  return relay.tunnel();
}

t.test('reconnects with exponential backoff and full jitter, reset after a connection that held', async (t) => {
  let gw = await startStandInGateway({ key: KEY });
  const port = gw.port;
  const clock = new ManualClock();
  const relay = await startRelay({ config: config(gw.url), log: () => {}, clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
  });
  await gw.connected(1);

  // the gateway drops a connection that had not held (no time passed): the first wait is half of the 1 s base
  await until(() => relay.tunnel().upSince === clock.now(), 'the relay has the welcome');
  gw.drop();
  let s = await waiting(relay);
  t.equal(s.failures, 1);
  t.equal(s.delayMs, 500, 'random 0.5 × min(cap, 1 s)');
  t.equal(s.nextRetryAt, clock.now() + 500);
  clock.advance(499);
  t.equal(gw.upgrades.length, 1, 'no retry before the delay');
  clock.advance(1);
  await gw.connected(2);
  t.equal(gw.upgrades.length, 2);

  // the gateway goes away: each refused connection doubles the window
  await gw.close();
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    s = await waiting(relay);
    delays.push(s.delayMs);
    clock.advance(s.delayMs);
    await until(() => relay.tunnel().state === 'session', 'retrying');
  }
  t.same(delays, [1000, 2000, 4000, 8000], 'failures 2..5: 0.5 × 1, 2, 4, 8 s');

  // it comes back at the same address: the next attempt connects
  gw = await startStandInGateway({ key: KEY, port });
  s = await waiting(relay);
  t.equal(s.delayMs, 16_000);
  clock.advance(16_000);
  await gw.connected(1);
  const hello = gw.frames.find((f) => f.t === 'hello');
  t.ok(hello, 'the agents are announced again on the new connection');

  // this connection holds (10 s): its end starts the backoff over
  await until(() => relay.tunnel().upSince !== undefined, 'the relay has the welcome');
  clock.advance(10_000);
  gw.drop();
  s = await waiting(relay);
  t.equal(s.failures, 1, 'reset after a connection that held');
  t.equal(s.delayMs, 500);
});

t.test('the window is capped at 60 s', async (t) => {
  const clock = new ManualClock();
  const relay = await startRelay({ config: config(`ws://127.0.0.1:${await freePort()}`), log: () => {}, clock, timers: clock, random: () => 0.999 });
  t.teardown(() => relay.stop());
  const delays: number[] = [];
  for (let i = 0; i < 9; i++) {
    const s = await waiting(relay);
    delays.push(s.delayMs);
    clock.advance(s.delayMs);
    await until(() => relay.tunnel().state === 'session', 'retrying');
  }
  t.same(delays, [999, 1998, 3996, 7992, 15984, 31968, 59940, 59940, 59940]);
});

t.test('a refused key (HTTP 401) waits the full cap and says why; no hot loop', async (t) => {
  const gw = await startStandInGateway({ key: 'another-key' });
  const clock = new ManualClock();
  const logs: string[] = [];
  const relay = await startRelay({ config: config(gw.url), log: (m, f) => logs.push(`${m} ${JSON.stringify(f)}`), clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
  });
  const s = await waiting(relay);
  t.equal(gw.upgrades[0]?.status, 401);
  t.equal(s.delayMs, 60_000, 'the cap, not a 1 s retry');
  t.match(s.lastError, /refused the relay's key \(HTTP 401\)/);
  t.ok(
    logs.some((l) => l.includes("refused the relay's key")),
    'the operator is told',
  );
  t.notOk(
    logs.some((l) => l.includes(KEY)),
    'the key is not logged',
  );
  clock.advance(59_999);
  t.equal(gw.upgrades.length, 1, 'no second attempt within the minute');
  // the operator registers the key: the next attempt gets in
  gw.setKey(KEY);
  clock.advance(1);
  await gw.connected(1);
  t.equal(gw.upgrades.at(-1)?.status, 101);
});

t.test('retry_attempts spent: the relay ends with code 1 and a clear message', async (t) => {
  const clock = new ManualClock();
  const relay = await startRelay({
    config: config(`ws://127.0.0.1:${await freePort()}`, { retry_attempts: 3 }),
    log: () => {},
    clock,
    timers: clock,
    random: () => 0.5,
  });
  for (let i = 0; i < 2; i++) {
    const s = await waiting(relay);
    t.equal(s.state, 'waiting', `attempt ${i + 1} failed, another follows`);
    clock.advance(s.delayMs);
  }
  const end = await relay.done;
  t.equal(end.code, 1);
  t.match(end.message, /gave up after 3 failed connection attempts \(retry_attempts 3\); last error: .*ECONNREFUSED/);
  t.equal(relay.tunnel().state, 'spent');
});

t.test('the a2a-relay command: spent retries exit 1, a bad config exits 2 naming the field', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-bin-'));
  const file = join(dir, 'relay.yaml');
  await writeFile(
    file,
    `workspace_id: ws1\napi_key: ${KEY}\ngateway_url: ws://127.0.0.1:${await freePort()}\nretry_attempts: 2\nagents:\n  - name: echo\n    local_url: ${sdk.url}\n`,
  );

  const lines: string[] = [];
  t.equal(await runRelayCli(['--config', file], { env: { SVC_ADMIN_PORT: '0' }, err: (l) => lines.push(l) }), 1, 'the function says 1');
  t.match(lines.join('\n'), /gave up after 2 failed connection attempts/);

  const bin = fileURLToPath(new URL('../../bin/a2a-relay.js', import.meta.url));
  const runBin = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, ...args],
        { env: { ...process.env, A2A_FROM_SOURCE: '1', SVC_ADMIN_PORT: '0', ...env }, timeout: 60_000 },
        (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
  const spent = await runBin(['--config', file]);
  t.equal(spent.code, 1, 'the process exits 1');
  t.match(spent.stderr, /a2a-relay: gave up after 2 failed connection attempts \(retry_attempts 2\)/);
  t.notMatch(spent.stderr, new RegExp(KEY), 'the key is not printed');

  const bad = await runBin(['--config', file], { LOG_LEVEL: 'loud' });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /a2a-relay: bad config: log_level \(from LOG_LEVEL\)/);

  const remote = await runBin(['--config', file], { SVC_GATEWAY_URL: 'ws://gw.example.com' });
  t.equal(remote.code, 2);
  t.match(remote.stderr, /gateway_url: ws:\/\/ \(no TLS\) is allowed only to a loopback gateway/);
});

t.test('liveness: the relay pings every 15 s; a gateway that never answers is left after 45 s', async (t) => {
  const gw = await startStandInGateway({ key: KEY, autoPong: false });
  const clock = new ManualClock();
  const relay = await startRelay({ config: config(gw.url), log: () => {}, clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
  });
  await gw.connected();
  await until(() => relay.tunnel().upSince !== undefined, 'the relay has the welcome');
  for (let i = 1; i <= 3; i++) {
    clock.advance(15_000);
    await until(() => gw.pings() === i, `ping ${i}`);
  }
  t.equal(relay.tunnel().state, 'session', 'still up at 45 s');
  clock.advance(15_000);
  const s = await waiting(relay);
  t.match(s.lastError, /no pong from the gateway within 45 s/);
});

t.test('liveness: a gateway that answers pings keeps the tunnel', async (t) => {
  const gw = await startStandInGateway({ key: KEY });
  const clock = new ManualClock();
  const relay = await startRelay({ config: config(gw.url), log: () => {}, clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
  });
  await gw.connected();
  for (let i = 1; i <= 6; i++) {
    clock.advance(15_000);
    // each pong is on its way back as the next ping goes out; the relay would need three missed in a row to leave
    await until(() => gw.pings() === i, `ping ${i}`);
  }
  t.equal(relay.tunnel().state, 'session');
  t.equal(gw.upgrades.length, 1, 'one connection all along');
});

t.test('wss:// to a gateway with a private CA: trusted through ca_file, refused without it', async (t) => {
  const certs = await makeCerts();
  t.teardown(() => certs.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'relay-ca-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, certs.ca.cert);
  const gw = await startStandInGateway({ key: KEY, tls: certs.server });
  t.teardown(() => gw.close());

  const clock = new ManualClock();
  const trusting = await startRelay({ config: config(gw.url, { ca_file: caFile }), log: () => {}, clock, timers: clock, random: () => 0.5 });
  await gw.connected();
  t.equal(gw.frames[0]?.t, 'hello', 'the hello came over TLS');
  await trusting.stop();

  const plain = await startRelay({ config: config(gw.url), log: () => {}, clock, timers: clock, random: () => 0.5 });
  t.teardown(() => plain.stop());
  const s = await waiting(plain);
  t.match(s.lastError, /certificate/i, 'an unknown CA is refused');
  t.equal(gw.upgrades.length, 1, 'nothing reached the gateway without a trusted certificate');
});

t.test('the a2a-relay process connects with env variables only and stops cleanly (exit 0) on SIGTERM', async (t) => {
  const gw = await startStandInGateway({ key: KEY });
  t.teardown(() => gw.close());
  const bin = fileURLToPath(new URL('../../bin/a2a-relay.js', import.meta.url));
  const child = spawn(process.execPath, [bin], {
    env: {
      ...process.env,
      A2A_FROM_SOURCE: '1',
      SVC_ADMIN_PORT: '0',
      SVC_API_KEY: KEY,
      SVC_WORKSPACE_ID: 'ws1',
      SVC_GATEWAY_URL: gw.url,
      LOCAL_AGENT_URL: sdk.url,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await gw.connected();
  t.same(gw.frames[0]?.t === 'hello' && gw.frames[0].agents.map((a) => a.name), ['sdk-echo']);
  child.kill('SIGTERM');
  t.equal(await exited, 0);
  t.match(stderr, /relay tunnel up/);
  t.notMatch(stderr, new RegExp(KEY), 'the key is not logged');
});

t.test('a2a-relay waiting for an unreadable LOCAL_AGENT_URL card says so, and SIGTERM still stops it (exit 0)', async (t) => {
  const bin = fileURLToPath(new URL('../../bin/a2a-relay.js', import.meta.url));
  const child = spawn(process.execPath, [bin], {
    env: {
      ...process.env,
      A2A_FROM_SOURCE: '1',
      SVC_ADMIN_PORT: '0',
      SVC_API_KEY: KEY,
      SVC_WORKSPACE_ID: 'ws1',
      SVC_GATEWAY_URL: `ws://127.0.0.1:${await freePort()}`,
      LOCAL_AGENT_URL: `http://127.0.0.1:${await freePort()}`,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await until(() => stderr.includes('local agent card not readable yet'), 'the relay reports the unreadable card', 60_000);
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});
