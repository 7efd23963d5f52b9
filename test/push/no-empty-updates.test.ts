// An agent that reports a bare `working` while its task is already a bare `working` (a heartbeat) changes nothing a
// reader can see: the gateway stores no change for it, so a push receiver gets no webhook that tells nothing new.
// Real gateway (port 0, real LMDB), a real receiver on loopback, a module agent whose heartbeats arrive apart.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { msgB } from '../support/gateway.js';
import { drive, pushStage } from '../support/webhooks.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

/** a delivery's body without the status timestamp: what changed for a reader */
const content = (json: Record<string, unknown> & { status?: Record<string, unknown> }) =>
  JSON.stringify({ ...json, status: { ...json.status, timestamp: undefined } });

t.test("an agent's heartbeats (bare working statuses) cause no webhook; every delivery tells something new", async (t) => {
  const { clock, gw, rx, key } = await pushStage(t, {
    agents: [...DEMO_AGENTS, { id: 'heartbeat', name: 'Heartbeat', kind: 'module', entry: fixture('heartbeat.js'), options: { beats: 4, gapMs: 40 } }],
    push: { timeoutMs: 5_000, maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 2_000 },
  });

  const sent = await gw.rpc({
    key,
    method: 'message/send',
    params: { ...msgB('go', { metadata: { agentId: 'heartbeat' } }), configuration: { blocking: false, pushNotificationConfig: { url: rx.url } } },
  });
  const id: string = sent.json.result?.id;
  t.ok(id, `the task started: ${JSON.stringify(sent.json).slice(0, 200)}`);
  // the agent paces itself in real time (it runs outside the gateway); the task is read until it ends, for up to 30 s
  // because a worker's start on a machine under load can take seconds (4 s was not always enough in CI)
  let state = '';
  for (let i = 0; i < 1_500 && state !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 20));
    // the stored record, not the live view: the completion's webhook is stored in the same write
    state = (await gw.gw.store.tasks.get('ws1', id))?.status.state ?? '';
  }
  t.equal(state, 'completed', 'the task completed and is stored');

  const done = await drive({ gw: gw.gw, clock, stepMs: 2_000, done: () => rx.deliveries.some((d) => d.json?.status?.state === 'completed') });
  t.ok(done, `the completion was delivered: ${JSON.stringify(rx.deliveries.map((d) => [d.status, d.json?.status?.state]))}`);
  const bodies = rx.deliveries.filter((d) => d.status === 200).map((d) => content(d.json));
  const repeats = bodies.filter((b, i) => i > 0 && b === bodies[i - 1]).length;
  t.equal(repeats, 0, `no webhook repeats the one before it (${bodies.length} delivered)`);
});
