// A gateway that refuses the relay's upgrade with Retry-After is not tried again before then: the real gateway's
// failed-authentication throttle (429, delta-seconds) seen in the relay's log and its admin UI's tunnel view, then the
// relay back once the window frees; an hour's Retry-After bounded by the backoff cap, each such wait an attempt that
// retry_attempts counts; the real gateway's store cut off (503, Retry-After 1); the HTTP-date form (which the real gateway never sends: a stand-in answers it, as a proxy in
// front of the gateway might), read against the answer's own Date header; a malformed value ignored for the plain
// backoff, and said so in the log. The relay runs on a ManualClock with its randomness fixed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { Admin } from '../../relay/admin/server.js';
import type { StatusView } from '../../relay/admin/state.js';
import { runRelayCli } from '../../relay/cli.js';
import { parseRelayConfig } from '../../relay/config.js';
import { type Relay, startRelay } from '../../relay/relay.js';
import { backoffDelay } from '../../relay/tunnel-machine.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { launchChromium } from '../support/browser.js';
import { startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { callerView, registerRelay } from '../support/relay-world.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { startStandInGateway, type StandInGateway } from '../support/tunnel-gateway.js';
import { openTunnel } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const WS = 'ws1';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const BASE_MS = 1_000;
const CAP_MS = 60_000;
/** the relay's every draw: its plain backoff after the n-th failure is 500·2^(n-1) ms */
const random = () => 0.5;
const plain = (n: number) => backoffDelay({ baseMs: BASE_MS, capMs: CAP_MS, retryAttempts: 0 }, n, random);
/** The wait after a Retry-After of `ms` (under the cap): it plus the spread drawn with the fixed randomness, 0.5 · ms / 2. */
const spread = (ms: number) => ms + ms / 4;
/** a key of the right shape that no one holds */
const wrongKey = (c: string) => `a2a_${c.repeat(40)}`;

let sdk: SdkRemote;
t.before(async () => {
  sdk = await startSdkRemote();
});
t.teardown(() => sdk.close());

/** A real gateway on its own ManualClock with a small budget of failed authentications; its log kept. */
async function realGateway(t: Test, authFailures: { perMinute: number; perHour: number }) {
  const clock = new ManualClock(T0);
  const log: string[] = [];
  const gw = await startTestGateway({ clock, config: { authFailures }, log: (msg, f) => log.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  t.teardown(() => gw.close());
  const reg = await registerRelay(gw, { workspace: WS, agents: ['sdk-echo'] });
  /** tunnel upgrades the gateway answered (accepted or refused) */
  const upgrades = () => log.filter((l) => l.startsWith('relay tunnel refused') || l.startsWith('relay connected')).length;
  /** wrong keys on the tunnel from 127.0.0.1 (another client behind the relay's address) until one is answered 429 */
  const exhaust = async () => {
    for (let i = 0; i < 10; i++) {
      const u = await openTunnel({ url: gw.url, key: wrongKey(String(i)) });
      if (!u.ok && u.status === 429) return u.headers['retry-after'];
    }
    throw new Error('the address was never refused');
  };
  return { clock, gw, reg, upgrades, exhaust };
}

const relayConfig = (o: { key: string; url: string; extra?: Record<string, unknown> }) => ({
  workspace_id: WS,
  api_key: o.key,
  gateway_url: o.url.replace(/^http/, 'ws'),
  agents: [{ name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url }],
  health_check_interval: 3600,
  ...o.extra,
});

t.test("the real gateway's failed-authentication throttle: no attempt before its Retry-After, shown in the log and the admin UI", async (t) => {
  const g = await realGateway(t, { perMinute: 2, perHour: 100 });
  t.equal(await g.exhaust(), '60', 'the address is past its budget: 429, Retry-After 60');
  g.clock.advance(15_000);

  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'a2a-relay-ra-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'relay.json');
  await writeFile(file, JSON.stringify({ ...relayConfig({ key: g.reg.relayKey.key, url: g.gw.url }), admin_port: 0 }));
  let stop!: () => void;
  const stopWhen = new Promise<void>((r) => (stop = r));
  let admin: Admin | undefined;
  const exit = runRelayCli(['--config', file], {
    env: {},
    stopWhen,
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
    err: (l) => logs.push(l),
    onAdmin: (a) => (admin = a),
    clock,
    timers: clock,
    random,
    backoffBaseMs: BASE_MS,
    backoffCapMs: CAP_MS,
  });
  t.teardown(async () => {
    stop();
    await exit;
  });
  await until(() => admin !== undefined, 'the admin UI listens');
  const status = async (): Promise<StatusView> => (await fetch(`${admin!.url}/api/status`)).json() as Promise<StatusView>;
  await until(async () => (await status()).connection === 'backing off', 'the relay is refused and backs off');
  const seen = g.upgrades();

  const st = await status();
  t.match(
    st,
    { attempts: 1, retryAfterMs: 45_000, nextAttemptAt: T0 + spread(45_000) },
    'the next attempt is after what the gateway said (and its spread), not 500 ms away',
  );
  t.match(st.lastError, /HTTP 429 Too Many Requests, Retry-After 45/, `the admin UI says why: ${st.lastError}`);
  t.match(st.lastErrorWords, /turned the relay away/);
  const line = logs.find((l) => l.startsWith('relay tunnel down, retrying'));
  t.match(line, /"retry_in_ms":56250/, `the log line gives the wait: ${line}`);
  t.match(line, /"retry_after_ms":45000/, 'and that the gateway asked for it');

  // the page the operator reads says why the relay waits
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(admin!.url);
  const asked = page.getByTestId('retry-after');
  await asked.waitFor({ timeout: 30_000 });
  t.equal(await asked.innerText(), 'The gateway asked the relay to wait 45 s (Retry-After)', 'the tunnel view shows the wait asked for');
  t.match(await page.getByTestId('next-attempt').innerText(), /Next attempt in 5\d s/, 'and the countdown to it');
  if (process.env.A2A_SCREENSHOTS === '1')
    await page.screenshot({ path: fileURLToPath(new URL('../../docs/screenshots/relay-retry-after.png', import.meta.url)), fullPage: true });

  clock.advance(44_999);
  t.equal((await status()).connection, 'backing off', 'no attempt 1 ms before the Retry-After');
  clock.advance(spread(45_000) - 45_000);
  t.equal((await status()).connection, 'backing off', 'nor before its spread is over');
  t.equal(g.upgrades(), seen, 'the gateway saw nothing meanwhile');

  // the gateway's window frees with its Retry-After: the attempt then is let in
  g.clock.advance(45_000);
  clock.advance(1);
  await until(async () => (await status()).connection === 'connected', 'the relay is back once the wait is over');
  t.equal(g.upgrades(), seen + 1, 'one attempt, at its time');
  const view = callerView({ gw: () => g.gw, key: g.reg.key });
  await until(() => view.online('sdk-echo'), 'its agent is online');
  t.notOk(logs.join('\n').includes(g.reg.relayKey.key), 'no key in the relay log');
});

t.test("an hour's Retry-After waits the cap; each such wait is an attempt retry_attempts counts", async (t) => {
  const g = await realGateway(t, { perMinute: 100, perHour: 2 });
  t.equal(await g.exhaust(), '3600', 'past the hour budget: Retry-After 3600');
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const relay: Relay = await startRelay({
    config: parseRelayConfig({ text: JSON.stringify(relayConfig({ key: g.reg.relayKey.key, url: g.gw.url, extra: { retry_attempts: 2 } })) }),
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
    clock,
    timers: clock,
    random,
    backoffBaseMs: BASE_MS,
    backoffCapMs: CAP_MS,
  });
  t.teardown(() => relay.stop());
  await until(() => relay.tunnel().state === 'waiting', 'refused once');
  const seen = g.upgrades();
  t.match(relay.tunnel(), { failures: 1, retryAfterMs: 3_600_000, delayMs: CAP_MS, nextRetryAt: T0 + CAP_MS }, 'the wait is bounded by the cap');
  clock.advance(CAP_MS - 1);
  t.equal(g.upgrades(), seen, 'nothing before the cap');
  clock.advance(1);
  const end = await relay.done;
  t.equal(g.upgrades(), seen + 1, 'the second attempt at the cap');
  t.equal(end.code, 1, 'the second refusal spends retry_attempts 2');
  t.match(end.message, /gave up after 2 failed connection attempts \(retry_attempts 2\).*HTTP 429/);
});

t.test("the real gateway's store unavailable: 503 with Retry-After 1, no attempt before it, back when the store is", async (t) => {
  const redisPort = Number(new URL(REDIS_URL).port || 6379);
  const proxy = await startTcpProxy(redisPort);
  t.teardown(() => proxy.close());
  const prefix = testPrefix('relay-retry-after');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const log: string[] = [];
  const gw = await startTestGateway({
    config: { store: 'redis', redisUrl: `redis://127.0.0.1:${proxy.port}`, redisPrefix: prefix, redis: { commandTimeoutMs: 300 } },
    log: (msg, f) => log.push(`${msg} ${JSON.stringify(f ?? {})}`),
  });
  t.teardown(() => gw.close());
  const reg = await registerRelay(gw, { workspace: WS, agents: ['sdk-echo'] });

  proxy.target(undefined);
  proxy.cut();
  const refused = await openTunnel({ url: gw.url, key: reg.relayKey.key });
  t.match(refused, { ok: false, status: 503, headers: { 'retry-after': '1' } }, 'the upgrade during the outage: 503 with Retry-After');
  t.match(refused.ok ? '' : refused.body, /"error":"store_unavailable".*store cannot be reached/, 'saying why');
  t.notOk(!refused.ok && refused.headers['www-authenticate'], 'no key was judged: no challenge');

  const clock = new ManualClock(T0);
  const relay: Relay = await startRelay({
    config: parseRelayConfig({ text: JSON.stringify(relayConfig({ key: reg.relayKey.key, url: gw.url })) }),
    log: () => {},
    clock,
    timers: clock,
    random,
    backoffBaseMs: BASE_MS,
    backoffCapMs: CAP_MS,
  });
  t.teardown(() => relay.stop());
  await until(() => relay.tunnel().state === 'waiting', 'the relay is refused');
  t.match(
    relay.tunnel(),
    { failures: 1, retryAfterMs: 1_000, delayMs: spread(1_000), lastError: /HTTP 503 Service Unavailable, Retry-After 1$/ },
    `the second the gateway asked (and its spread), not the backoff's ${plain(1)} ms`,
  );
  const upgrades = () => log.filter((l) => l.startsWith('relay tunnel refused') || l.startsWith('relay connected')).length;
  const seen = upgrades();
  clock.advance(spread(1_000) - 1);
  t.equal(relay.tunnel().state, 'waiting', 'no attempt before it');
  t.equal(upgrades(), seen);
  proxy.target(redisPort);
  clock.advance(1);
  t.equal(relay.tunnel().state, 'session', 'the attempt starts at its time');
  // the gateway's Redis client reconnects in its own time: each refusal meanwhile is waited out as told
  await until(() => {
    const v = relay.tunnel();
    if (v.state === 'waiting') clock.advance(v.nextRetryAt! - clock.now());
    return v.upSince !== undefined;
  }, 'the relay is back with the store');
});

/** The relay against a stand-in that refuses every upgrade as told. */
async function againstStandIn(t: Test) {
  const key = 'relay-key-Ra7vQ2mWx';
  const gw: StandInGateway = await startStandInGateway({ key });
  t.teardown(() => gw.close());
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const start = async () => {
    const relay = await startRelay({
      config: parseRelayConfig({ text: JSON.stringify(relayConfig({ key, url: gw.url })) }),
      log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
      clock,
      timers: clock,
      random,
      backoffBaseMs: BASE_MS,
      backoffCapMs: CAP_MS,
    });
    t.teardown(() => relay.stop());
    return relay;
  };
  /** the n-th failed attempt taken: the relay waits */
  const failed = (relay: Relay, n: number) => until(() => relay.tunnel().state === 'waiting' && relay.tunnel().failures === n, `attempt ${n} failed`);
  return { gw, clock, logs, start, failed };
}

t.test('the HTTP-date form: no attempt before the date, read against the answer’s own Date when it has one', async (t) => {
  const s = await againstStandIn(t);
  const date = (ms: number) => new Date(ms).toUTCString();
  s.gw.refuse({ status: 503, headers: { 'Retry-After': date(T0 + 30_000) } });
  const relay = await s.start();
  await s.failed(relay, 1);
  t.match(relay.tunnel(), {
    retryAfterMs: 30_000,
    delayMs: spread(30_000),
    nextRetryAt: T0 + spread(30_000),
    lastError: /HTTP 503 Service Unavailable, Retry-After .*GMT/,
  });
  s.clock.advance(spread(30_000) - 1);
  t.equal(s.gw.upgrades.length, 1, 'no attempt before the date (and its spread)');
  // a gateway whose clock is an hour behind ours: its date is an hour "past", but it asked for 20 s
  const behind = T0 + 30_000 - 3_600_000;
  s.gw.refuse({ status: 503, headers: { Date: date(behind), 'Retry-After': date(behind + 20_000) } });
  s.clock.advance(1);
  await s.failed(relay, 2);
  t.equal(s.gw.upgrades.length, 2, 'the attempt at the date');
  t.match(relay.tunnel(), { retryAfterMs: 20_000, delayMs: spread(20_000) }, 'the wait the gateway meant, whatever its clock');
  s.gw.refuse(undefined);
  s.clock.advance(spread(20_000));
  await s.gw.connected();
  t.equal(s.gw.upgrades.length, 3);
});

t.test('a malformed Retry-After is ignored: the plain backoff, and the log says so', async (t) => {
  const s = await againstStandIn(t);
  const malformed = ['soon', '1.5', '-5', '12abc', 'Thu, 32 Jan 2026 00:00:00 GMT', 'Fri, 01 Jan 2026 12:00:30 GMT', '2026-01-01T12:00:30Z'];
  s.gw.refuse({ status: 429, headers: { 'Retry-After': malformed[0]! } });
  const relay = await s.start();
  for (let n = 1; n <= malformed.length; n++) {
    await s.failed(relay, n);
    const v = relay.tunnel();
    t.match(v, { delayMs: plain(n), retryAfterMs: undefined }, `"${malformed[n - 1]}": the backoff's ${plain(n)} ms`);
    const said = s.logs.filter((l) => l.startsWith('relay ignored a malformed Retry-After'));
    t.equal(said.length, n, 'logged');
    t.match(said.at(-1), JSON.stringify(malformed[n - 1]), 'with the value');
    if (n < malformed.length) s.gw.refuse({ status: 429, headers: { 'Retry-After': malformed[n]! } });
    s.clock.advance(v.delayMs);
  }
});

t.test('relays refused together with one Retry-After do not all come back in the same instant', async (t) => {
  const key = 'relay-key-Ra7vQ2mWx';
  const gw: StandInGateway = await startStandInGateway({ key });
  t.teardown(() => gw.close());
  gw.refuse({ status: 503, headers: { 'Retry-After': '10' } });
  const clock = new ManualClock(T0);
  // three relays of one network, each with its own randomness (the lowest, a middle and the highest draw)
  const relays = await Promise.all(
    [0, 0.5, 0.999].map(async (r) => {
      const relay = await startRelay({
        config: parseRelayConfig({ text: JSON.stringify(relayConfig({ key, url: gw.url })) }),
        log: () => {},
        clock,
        timers: clock,
        random: () => r,
        backoffBaseMs: BASE_MS,
        backoffCapMs: CAP_MS,
      });
      t.teardown(() => relay.stop());
      return relay;
    }),
  );
  await until(() => relays.every((r) => r.tunnel().state === 'waiting'), 'all three refused');
  const waits = relays.map((r) => r.tunnel().delayMs);
  t.same(waits, [10_000, 12_500, 14_995], 'each waits the 10 s asked plus its own share of up to 5 s more');
  t.ok(
    relays.every((r) => r.tunnel().retryAfterMs === 10_000),
    'all were asked for the same 10 s',
  );
  gw.refuse(undefined);
  clock.advance(10_000);
  await until(() => gw.upgrades.length === 4, 'the first is back at 10 s');
  t.equal(gw.upgrades.length, 4, 'and only it: the others still wait');
  clock.advance(5_000);
  await until(() => gw.upgrades.length === 6, 'the others follow, each at its own time');
});
