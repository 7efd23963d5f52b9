// A gateway (or the link to it) slower than a local agent: the relay must not hold whatever its local agent writes.
// The stand-in gateway stops reading its tunnel while a real local agent (the official SDK server) streams 64 MiB;
// the relay stops the turn once its queue passes MAX_RELAY_BACKLOG, and the gateway, reading again, gets a bounded
// share of the output and the turn's `fail` with reason tunnel_backlog. The tunnel itself stays up.
import type { AgentExecutor } from '@a2a-js/sdk/server';
import t from 'tap';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import { MAX_RELAY_BACKLOG } from '../../relay/session.js';
import type { TurnResult } from '../../relay/turn.js';
import { until, userMessage } from '../support/a2a-client.js';
import { startSdkRemote } from '../support/sdk-remote.js';
import { startStandInGateway } from '../support/tunnel-gateway.js';

t.setTimeout(120_000);

const RELAY_KEY = 'relay-key-Bk7Qw2mZp4';
const CHUNK = 256 * 1024;
const CHUNKS = 256;

t.test('a tunnel that stops reading: the turn fails tunnel_backlog past the bound, not after all 64 MiB', async (t) => {
  const flood: AgentExecutor = {
    async execute(ctx, bus) {
      const base = { taskId: ctx.taskId, contextId: ctx.contextId };
      bus.publish({
        kind: 'task',
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 'working', timestamp: new Date().toISOString() },
        history: [ctx.userMessage],
      });
      const text = 'z'.repeat(CHUNK);
      for (let i = 0; i < CHUNKS; i++) {
        // one artifact replaced again and again (a progress snapshot): the task does not grow, the stream does
        bus.publish({ kind: 'artifact-update', ...base, artifact: { artifactId: 'progress', parts: [{ kind: 'text', text }] } });
        if (i % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', timestamp: new Date().toISOString() }, final: true });
      bus.finished();
    },
    async cancelTask() {},
  };
  const local = await startSdkRemote({ executor: flood });
  t.teardown(() => local.close());
  const gw = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw.close());
  const ends: TurnResult[] = [];
  const logs: string[] = [];
  const relay = await startRelay({
    config: parseRelayConfig({
      text: JSON.stringify({ workspace_id: 'ws1', api_key: RELAY_KEY, gateway_url: gw.url, agents: [{ name: 'flood', local_url: local.url }] }),
    }),
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
    observer: { turn: () => ({ event: () => {}, end: (r) => void ends.push(r) }) },
  });
  t.teardown(() => relay.stop());
  await gw.connected();

  gw.pause();
  const task = { id: 't-1', contextId: 'c-1', history: [], artifacts: [], metadata: {} };
  gw.send({ t: 'run', sid: 1, agent: 'flood', task, message: userMessage('flood'), stream: true });
  await until(() => ends.length > 0, 'the relay ended the turn', 60_000);
  gw.resume();

  const end = await gw.waitFor((f) => (f.t === 'fail' || f.t === 'done') && f.sid === 1);
  t.match(end, { t: 'fail', reason: 'tunnel_backlog' }, 'the turn fails with the reason');
  const got = gw.frames.filter((f) => f.t === 'event' && f.event.type === 'artifact').length * CHUNK;
  // what the relay queued, plus what the sockets' kernel buffers held on the way
  t.ok(got < MAX_RELAY_BACKLOG + 16 * 1024 * 1024, `the gateway got a bounded share of the output: ${got} bytes of ${CHUNK * CHUNKS}`);
  t.ok(
    logs.some((l) => l.startsWith('relay turn failed') && l.includes('tunnel_backlog')),
    'the relay logs why',
  );
  t.equal(relay.tunnel().state, 'session', 'the tunnel is still up');
});
