// /metrics shows the agent worker pool: its threads and queue now, its turns by outcome, and its workers started, ended
// and recycled. An operator reads there why workers churn (turns timing out, agents leaving work behind) without a
// debugger. Real gateway on port 0, module agents in the test's temp dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';
import { sample, scrape } from '../support/metrics.js';
import { until } from '../support/a2a-client.js';

t.setTimeout(120_000);

// `leave`: ends its turn with an unref'd interval still set (its worker is recycled); `spin`: never ends (timeout)
const AGENT = `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  if (how === 'leave') setInterval(() => {}, 60_000).unref();
  if (how === 'spin') for (;;);
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'done' }] } };
}`;

t.test('turns by outcome and worker turnover are counted; threads and queue are read at scrape time', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-pool-metrics-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'agent.js'), AGENT);
  const gw = await startTestGateway({
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true },
        { id: 'mod', name: 'mod', kind: 'module', entry: join(dir, 'agent.js'), timeoutMs: 60_000 },
        // the same module with a short deadline, for the turn that never ends
        { id: 'spinner', name: 'spinner', kind: 'module', entry: join(dir, 'agent.js'), timeoutMs: 1500 },
      ],
      // one thread: the spinning turn starts on the worker the turn before it readied (a turn still queued when its
      // deadline passes is dropped from the queue, and no worker ends)
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = async (text: string, agentId: string) => {
    const r = await gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });
    return r.json.result?.status?.state as string | undefined;
  };

  const before = await scrape(t, gw.url);
  t.ok(sample(before, 'a2a_agent_pool_threads') >= 1, 'the pool has its minimum thread running');
  const startedBefore = sample(before, 'a2a_agent_workers_started_total');
  t.ok(startedBefore >= 1, 'and counted it as started');
  t.equal(sample(before, 'a2a_agent_runs_total', { outcome: 'ok' }), 0, 'no turn yet');

  t.equal(await send('a', 'echo'), 'completed');
  t.equal(await send('b', 'echo'), 'completed');
  t.equal(await send('quiet', 'mod'), 'completed');
  t.equal(await send('leave', 'mod'), 'completed', 'a turn that leaves work behind still completes');
  t.equal(await send('quiet', 'mod'), 'completed', 'the next turn runs on its replacement');
  t.equal(await send('spin', 'spinner'), 'failed', 'a turn that never ends fails at its deadline');

  const after = await scrape(t, gw.url);
  t.equal(sample(after, 'a2a_agent_runs_total', { outcome: 'ok' }), 5, 'five turns ended well');
  t.equal(sample(after, 'a2a_agent_runs_total', { outcome: 'timeout' }), 1, 'one timed out');
  t.equal(sample(after, 'a2a_agent_runs_total', { outcome: 'worker_crash' }), 0, 'every known outcome is listed, 0 included');
  t.equal(sample(after, 'a2a_agent_workers_recycled_total'), 1, 'the worker the interval was left in was recycled');
  // a worker's end and its replacement's start are reported by its thread a moment after the turn's answer
  const text = async () => (await fetch(`${gw.url}/metrics`)).text();
  await until(async () => sample(await text(), 'a2a_agent_workers_ended_total') >= 2, 'the recycled and the spinning turn’s workers counted as ended');
  await until(async () => sample(await text(), 'a2a_agent_workers_started_total') >= startedBefore + 2, 'their replacements counted as started');
  t.equal(sample(after, 'a2a_agent_runs_in_flight'), 0, 'nothing runs now');
  t.equal(sample(after, 'a2a_agent_pool_queued'), 0, 'nothing waits');
  t.match(after, /# HELP a2a_agent_runs_total agent turns run by the worker pool/, 'each metric says what it counts');
});
