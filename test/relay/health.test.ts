// Health checks of the local agents on a ManualClock, against a stand-in gateway end (the real endpoint is being built in
// parallel): the first state goes up once the tunnel is welcomed, a local agent that stops answering its card is reported
// down, and up again when it is back; a round that changes nothing sends nothing.
import t from 'tap';
import type { RequestHandler } from 'express';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import type { RelayFrame } from '../../src/protocol/tunnel.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { startSdkRemote } from '../support/sdk-remote.js';
import { startStandInGateway } from '../support/tunnel-gateway.js';

const KEY = 'relay-key-Hh4kP0zX';

t.test('health changes of a local agent go up the tunnel', async (t) => {
  // the local agent "goes down": it answers every request, its card included, with 503 until it is back
  let down = false;
  const outage: RequestHandler = (_req, res, next) => (down ? res.status(503).end() : next());
  const sdk = await startSdkRemote({ before: [outage] });
  const gw = await startStandInGateway({ key: KEY });
  const clock = new ManualClock();
  const config = parseRelayConfig({
    text: JSON.stringify({ workspace_id: 'ws1', api_key: KEY, gateway_url: gw.url, health_check_interval: 10, agents: [{ name: 'echo', local_url: sdk.url }] }),
  });
  const relay = await startRelay({ config, log: () => {}, clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
    await sdk.close();
  });
  type Health = Extract<RelayFrame, { t: 'health' }>;
  const isHealth = (f: RelayFrame): f is Health => f.t === 'health';
  const states = () => gw.frames.filter(isHealth).flatMap((f) => f.agents.filter((a) => a.name === 'echo').map((a) => a.up));

  await gw.connected();
  await until(() => states().length === 1 && relay.health.rounds() === 1, 'the first health report');
  t.same(states(), [true], 'up, announced once');

  down = true;
  const cards = sdk.cardFetches().length;
  clock.advance(10_000);
  await until(() => states().length === 2 && relay.health.rounds() === 2, 'the down report');
  t.same(states(), [true, false]);
  const downFrame = gw.frames.filter(isHealth).at(-1);
  t.match(downFrame?.agents[0]?.error, /./, 'with the reason');

  // another round, still down: nothing new goes up
  const fetched = sdk.cardFetches().length;
  t.ok(fetched > cards, 'the check read the card');
  clock.advance(10_000);
  await until(() => relay.health.rounds() === 3, 'the next round ran');
  t.ok(sdk.cardFetches().length > fetched, 'it read the card again');

  down = false;
  clock.advance(10_000);
  await until(() => states().length >= 3, 'the up report');
  t.same(states(), [true, false, true], 'back up; the unchanged round in between sent nothing');
  t.same(
    relay.health.current().map((h) => [h.name, h.up]),
    [['echo', true]],
  );
});

t.test('a local agent still down for another reason: the new error goes up and is logged, bounded and without a key', async (t) => {
  // down twice over: first 503, then 500 with a body that echoes a key and runs long
  let status = 0;
  const outage: RequestHandler = (_req, res, next) => (status > 0 ? res.status(status).end() : next());
  const sdk = await startSdkRemote({ before: [outage] });
  const gw = await startStandInGateway({ key: KEY });
  const clock = new ManualClock();
  const logs: string[] = [];
  const config = parseRelayConfig({
    text: JSON.stringify({ workspace_id: 'ws1', api_key: KEY, gateway_url: gw.url, health_check_interval: 10, agents: [{ name: 'echo', local_url: sdk.url }] }),
  });
  const relay = await startRelay({ config, log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`), clock, timers: clock, random: () => 0.5 });
  t.teardown(async () => {
    await relay.stop();
    await gw.close();
    await sdk.close();
  });
  type Health = Extract<RelayFrame, { t: 'health' }>;
  const reports = () => gw.frames.filter((f): f is Health => f.t === 'health').flatMap((f) => f.agents.filter((a) => a.name === 'echo'));

  await gw.connected();
  await until(() => reports().length === 1 && relay.health.rounds() === 1, 'the first health report');
  status = 503;
  clock.advance(10_000);
  await until(() => reports().length === 2, 'the down report');
  t.match(reports()[1]?.error, /503/);

  status = 500;
  clock.advance(10_000);
  await until(() => relay.health.rounds() === 3, 'the next round ran');
  await until(() => reports().length === 3, 'the new error goes up');
  t.equal(reports()[2]?.up, false, 'still down');
  t.match(reports()[2]?.error, /500/, 'with the new error');
  const downs = logs.filter((l) => l.startsWith('local agent down'));
  t.equal(downs.length, 2, 'each error is logged once');
  t.match(downs[1], /500/, 'the line names the new error');

  // the same error again: nothing new
  clock.advance(10_000);
  await until(() => relay.health.rounds() === 4, 'another round ran');
  t.equal(reports().length, 3, 'a repeated error sends nothing');
  t.equal(logs.filter((l) => l.startsWith('local agent down')).length, 2, 'nor logs');
});
