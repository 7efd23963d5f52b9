// The relay tunnel under unlucky timing, gateway side: a real gateway on port 0 and relays as real WebSocket clients.
// Two tunnels of one relay saying hello at once (a relay reconnecting while its old tunnel is still being greeted, or
// two relay processes started with one key): one tunnel is the relay's, the other is closed, never left open unused.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { echoTurns, openTunnel, type TunnelClient } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: true });

t.test('two tunnels of one relay greeted at once: one serves, the other is closed as replaced', async (t) => {
  const logs: string[] = [];
  const gw = await startTestGateway({ log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  t.teardown(() => gw.close());
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });

  for (let round = 0; round < 3; round++) {
    const tunnels: TunnelClient[] = [];
    for (let i = 0; i < 2; i++) {
      const up = await openTunnel({ url: gw.url, key: relayKey.key });
      if (!up.ok) throw new Error(`upgrade refused: ${up.status}`);
      tunnels.push(up.client);
    }
    // both hellos leave in one go: the second is read while the first is still being registered
    for (const c of tunnels) c.send({ t: 'hello', v: 1, workspace: 'ws1', agents: [card('local-echo')] });
    for (const c of tunnels) echoTurns(c);
    const answers = await Promise.all(tunnels.map((c) => c.next((f) => f.t === 'welcome' || f.t === 'error')));
    t.ok(
      answers.every((a) => a?.t === 'welcome'),
      `round ${round}: both were welcomed in turn`,
    );
    // exactly one stays: the other is closed as replaced (not left open, welcomed, and never given a turn)
    let bound: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      ...tunnels.map((c, i) => c.closed.then((c) => ({ i, code: c.code }))),
      new Promise<{ i: number; code: number }>((r) => (bound = setTimeout(() => r({ i: 0, code: 0 }), 10_000))),
    ]);
    clearTimeout(bound);
    t.equal(closed.code, 4000, `round ${round}: one tunnel is closed as replaced`);
    const live = tunnels[1 - closed.i]!;
    t.equal(live.ws.readyState, live.ws.OPEN, `round ${round}: the other stays open`);
    const r = await gw.rpc({ method: 'message/send', key, params: msgB(`round ${round}`), path: '/api/a2a/agents/local-echo' });
    t.equal(r.json.result?.status?.state, 'completed', `round ${round}: the open one serves the turn`);
    t.ok(
      live.frames.some((f) => f.t === 'run'),
      `round ${round}: on the tunnel that stayed`,
    );
    for (const c of tunnels) c.close();
    await Promise.all(tunnels.map((c) => c.closed));
  }
});
