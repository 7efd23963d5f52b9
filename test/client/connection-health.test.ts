// Supervised connections under a manual clock: a dead remote backs off, opens its circuit (calls refused at once),
// closes it again when the remote returns; a hung remote blocks nothing else; kept results expire with the sweeper.
import t from 'tap';
import type { RequestHandler } from 'express';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { until } from '../support/a2a-client.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

const WS = 'ws1';
const HOUR = 3_600_000;

/** A remote that can be taken down (every request's socket is destroyed: the client sees a network failure) and up. */
let down = false;
const outage: RequestHandler = (req, _res, next) => (down ? req.socket.destroy() : next());
/** A remote whose card reads fine and whose calls are taken and never answered. */
const hang: RequestHandler = (req, _res, next) => (req.method === 'POST' ? undefined : next());

let flaky: SdkRemote;
let hung: SdkRemote;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.UTC(2026, 5, 1));

t.before(async () => {
  flaky = await startSdkRemote({ before: [outage], streaming: false });
  hung = await startSdkRemote({ before: [hang] });
  ours = await startTestGateway({
    clock,
    timers: clock,
    config: {
      push: { allowlist: ['127.0.0.1'] },
      connections: { circuitFailures: 3, backoffBaseMs: 1_000, backoffMaxMs: 4_000, coolDownMs: 30_000, rescanMs: 10 * HOUR, readyWaitMs: 60_000 },
      retention: { taskTtlMs: 0, sweepIntervalMs: 60_000 },
      agents: [
        { id: 'flaky', name: 'flaky', kind: 'remote', connection: 'flaky', workspace: WS },
        { id: 'hung', name: 'hung', kind: 'remote', connection: 'hung', workspace: WS },
        { id: 'echo', name: 'echo', kind: 'builtin', entry: 'echo', workspace: WS },
      ],
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { connections: ours.gw.store.connections, secret: ours.gw.secret, clock, allowlist: parseAllowlist(['127.0.0.1']) };
  await addConnection(deps, { workspace: WS, name: 'flaky', url: flaky.url, credentials: { kind: 'none' }, trust: 'execute', resultRetentionHours: 2 });
  await addConnection(deps, { workspace: WS, name: 'hung', url: hung.url, credentials: { kind: 'none' }, trust: 'execute' });
});

t.teardown(async () => {
  await flaky.close();
  await hung.close();
  await ours.close();
});

const status = () => ours.gw.store.connections.getStatus(WS, 'flaky');
const send = (agentId: string, text = 'ping') => ours.rpc({ method: 'message/send', key, params: msgB(text, { metadata: { agentId } }) });

t.test('a dead remote: backing off, then the circuit opens and calls are refused without reaching it', async (t) => {
  down = true;
  await ours.gw.connections.rescan();
  const states: string[] = [];
  for (let i = 0; i < 3; i++) {
    await until(
      async () => {
        const now = await status();
        return now?.failures === i + 1 && ['backing-off', 'circuit-open'].includes(now.state);
      },
      `failure ${i + 1} recorded`,
    );
    const s = (await status())!;
    states.push(s.state);
    t.match(s.lastError, /socket hang up|ECONNRESET|closed|reset/i, 'the last error says what happened');
    t.ok(s.nextRetryAt! > clock.now(), 'the next attempt is in the future');
    if (s.state === 'circuit-open') break;
    clock.advance(s.nextRetryAt! - clock.now());
  }
  t.same(states, ['backing-off', 'backing-off', 'circuit-open']);
  const s = (await status())!;
  t.equal(s.failures, 3);
  t.equal(s.nextRetryAt, clock.now() + 30_000, 'one probe after the cool-down');

  const before = flaky.requests.length;
  const r = await send('flaky');
  t.equal(r.json.result.status.state, 'failed');
  t.match(r.json.result.status.message.parts[0].text, /refusing calls after repeated failures/);
  t.equal(flaky.requests.length, before, 'an open circuit sends nothing');
});

t.test('the remote returns: after the cool-down one probe closes the circuit and calls flow again', async (t) => {
  down = false;
  const before = flaky.cardFetches().length;
  clock.advance(30_000);
  await until(async () => (await status())?.state === 'ready', 'the probe closed the circuit');
  t.equal(flaky.cardFetches().length, before + 1, 'the probe read the card afresh');
  t.equal((await status())?.failures, 0);
  const r = await send('flaky', 'back again');
  t.equal(r.json.result.status.state, 'completed', JSON.stringify(r.json));
  t.equal(r.json.result.artifacts[0].parts[0].text, 'back again');
});

t.test('a hung remote blocks neither another connection, nor the front, nor tasks/get', async (t) => {
  const stuck = send('hung');
  await until(() => hung.calls().length === 1, 'the hung remote holds a request');
  const other = await send('flaky', 'meanwhile');
  t.equal(other.json.result.status.state, 'completed');
  const local = await send('echo', 'local');
  t.equal(local.json.result.status.state, 'completed');
  const got = await ours.rpc({ method: 'tasks/get', key, params: { id: other.json.result.id } });
  t.equal(got.json.result.status.state, 'completed');
  // the hung call ends when its remote goes away
  hung.close();
  const end = await stuck;
  t.equal(end.json.result.status.state, 'failed');
});

t.test("kept results are deleted by the sweeper once their connection's retention has passed", async (t) => {
  const kept = await ours.gw.store.results.list({ workspace: WS, connection: 'flaky' });
  t.equal(kept.length, 2);
  t.equal(kept[0]!.expiresAt, kept[0]!.createdAt + 2 * HOUR);
  const last = Math.max(...kept.map((k) => k.expiresAt));
  clock.set(Math.min(...kept.map((k) => k.expiresAt)) - 1);
  t.equal(await ours.gw.retention.sweep(), 0);
  t.equal((await ours.gw.store.results.list({ workspace: WS })).length, 2, 'nothing goes before its time');
  clock.set(last);
  t.equal(await ours.gw.retention.sweep(), 2);
  t.same(await ours.gw.store.results.list({ workspace: WS }), [], 'every expired result is gone');
});
