// A peer that takes the tunnel's upgrade and then says nothing (a broken gateway, or a proxy that accepts WebSockets
// and forwards nothing) still answers pings, so the relay's ping/pong liveness never ends the tunnel: the relay waits
// WELCOME_TIMEOUT_MS for the welcome after its hello, then closes and reconnects with its normal backoff. The peer is a
// plain `ws` server in the test; the relay's time is a ManualClock.
import type { AddressInfo } from 'node:net';
import { unpack } from 'msgpackr';
import t from 'tap';
import { type WebSocket, WebSocketServer } from 'ws';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import { WELCOME_TIMEOUT_MS } from '../../relay/session.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';

t.setTimeout(60_000);

const STEP_MS = 5_000;

t.test('a gateway that accepts the upgrade and stays silent: the relay gives up on it and reconnects', async (t) => {
  // accepts every upgrade, reads the hello, answers nothing (but the pings, as every WebSocket server does)
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const sockets: WebSocket[] = [];
  const hellos: unknown[] = [];
  wss.on('connection', (ws) => {
    sockets.push(ws);
    ws.on('message', (data: Buffer) => hellos.push(unpack(data)));
  });
  t.teardown(() => new Promise<void>((r) => wss.close(() => r())));

  const clock = new ManualClock();
  const logs: string[] = [];
  const relay = await startRelay({
    config: parseRelayConfig({
      text: JSON.stringify({
        workspace_id: 'ws1',
        api_key: 'relay-key-Wt5mQ9xLp2',
        gateway_url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
        health_check_interval: 3600,
        agents: [{ name: 'echo', local_url: 'http://127.0.0.1:9/' }],
      }),
    }),
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
    clock,
    timers: clock,
    random: () => 0.5,
  });
  t.teardown(() => relay.stop());
  await until(() => hellos.length === 1, 'the relay said hello');
  const first = sockets[0]!;
  const closed = new Promise<void>((r) => first.once('close', () => r()));
  let gone = false;
  void closed.then(() => (gone = true));

  // time passes as it would on a live link: the peer is heard from (it pings, the relay answers) between steps, so
  // what ends the tunnel is the missing welcome, not a missing pong
  let waited = 0;
  while (waited < 4 * WELCOME_TIMEOUT_MS) {
    clock.advance(STEP_MS);
    waited += STEP_MS;
    const pong = new Promise<void>((r) => first.once('pong', () => r()));
    if (!gone) first.ping();
    await Promise.race([pong, closed]);
    if (gone) break;
  }
  t.ok(gone, `the relay closed the silent tunnel (after ${waited / 1000} s)`);
  t.equal(waited, WELCOME_TIMEOUT_MS, 'once the welcome was due, not before');
  await until(() => relay.tunnel().state === 'waiting', 'the relay waits to retry');
  const s = relay.tunnel();
  t.match(s.lastError, /no welcome from the gateway within 30 s/, 'the reason says so');
  t.equal(s.delayMs, 500, 'its normal backoff: 0.5 × the 1 s base');
  t.ok(
    logs.some((l) => l.startsWith('relay tunnel down, retrying') && /no welcome/.test(l)),
    'and the operator is told',
  );
  clock.advance(s.delayMs);
  await until(() => hellos.length === 2, 'the relay reconnects and says hello again');
  t.equal(sockets.length, 2, 'on a new connection');
});
