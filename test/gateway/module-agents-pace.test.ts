// A module agent that yields faster than the gateway takes its events is slowed, not stopped: its worker stops pulling
// from it while the main thread is behind. Only an agent whose events still pile up past the pool's bound (here: its own
// code posting each batch many times over, past the pacing) fails. Real gateway on port 0, agents in the test's temp dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(180_000);

/** well past the pool's bound of 200,000 waiting events, which an unpaced flood of this size reached */
const EVENTS = 300_000;

const AGENTS: Record<string, string> = {
  'fast.js': `
export default async function* (ctx) {
  const n = Number(ctx.message.parts[0].text);
  for (let i = 1; i <= n; i++) yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'tick ' + i }] } };
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'yielded ' + n } ] } };
}`,
  // posts every batch of its run 50 times: the worker's pacing counts one, the pool receives fifty
  'multiplies.js': `
import { parentPort } from 'node:worker_threads';
const post = parentPort.postMessage;
parentPort.postMessage = function (m, transfer) {
  post.call(this, m, transfer);
  if (m && typeof m === 'object' && 'a2aRun' in m) for (let i = 0; i < 49; i++) post.call(this, m, transfer);
};
export default async function* () {
  for (let i = 0; ; i++) yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'tick ' + i }] } };
}`,
};

t.test('a fast producer is paused while the gateway is behind; only one that floods past the bound fails', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-pace-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, src] of Object.entries(AGENTS)) await writeFile(join(dir, name), src);
  const mod = (id: string, file: string) => ({ id, name: id, kind: 'module', entry: join(dir, file), timeoutMs: 150_000 });
  const gw = await startTestGateway({
    config: {
      agents: [{ id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 }, mod('fast', 'fast.js'), mod('multiplies', 'multiplies.js')],
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (agentId: string, text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });

  const t0 = Date.now();
  const fast = await send('fast', String(EVENTS));
  t.equal(fast.json.result?.status?.state, 'completed', `${EVENTS} progress events in a tight loop: the turn completes`);
  t.equal(fast.json.result?.status?.message?.parts?.[0]?.text, `yielded ${EVENTS}`);
  t.comment(`${EVENTS} events in ${Date.now() - t0} ms`);

  const flood = await send('multiplies', 'go');
  t.equal(flood.json.result?.status?.state, 'failed', 'an agent whose events still pile up past the bound fails');
  t.equal(flood.json.result?.status?.message?.metadata?.reason, 'agent_protocol');
  t.match(flood.json.result?.status?.message?.parts?.[0]?.text, /faster than the gateway could take them \(over 200000 waiting\)/);

  const echo = await gw.rpc({ key, method: 'message/send', params: msgB('still here') });
  t.equal(echo.json.result?.status?.state, 'completed', 'the gateway goes on');
});
