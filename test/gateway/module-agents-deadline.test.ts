// A module turn that ended before its deadline keeps its result and its worker, even when the gateway's main thread was
// held up past that deadline before it read the answer (a GC pause, a loaded machine): the answer waiting on the
// worker's port is read before the deadline's timer decides. Real gateway on port 0 (in this process, so the test can
// hold its main thread), the agent in the test's temp dir, one worker thread.
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLog } from '../../src/runtime/log.js';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(240_000);

const DEADLINE_MS = 4000;

// says it started, waits for the test's go, then ends its turn and says so
const AGENT = `
import { existsSync, writeFileSync } from 'node:fs';
let turns = 0;
export default async function* (ctx) {
  turns++;
  const dir = ctx.message.parts[0].text;
  if (dir !== '-') {
    writeFileSync(dir + '/started', '');
    while (!existsSync(dir + '/go')) await new Promise((r) => setTimeout(r, 5));
  }
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'turn ' + turns + ' of this worker' }] } };
  if (dir !== '-') writeFileSync(dir + '/done', '');
}`;

/** Holds this thread (the gateway's main thread) until `until` says so. */
function hold(until: () => boolean): void {
  while (!until()) {
    // spin: nothing on this thread may run meanwhile
  }
}

t.test('a turn answered by its deadline is not failed as a timeout when the main thread reads the answer late', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-deadline-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'waits.js'), AGENT);
  // the log is kept to say, should a turn run on a fresh worker, what the pool was told was left behind
  const logged: string[] = [];
  const gw = await startTestGateway({
    log: createLog({ level: 'info', write: (l) => logged.push(l) }),
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 },
        { id: 'waits', name: 'waits', kind: 'module', entry: join(dir, 'waits.js'), timeoutMs: DEADLINE_MS },
        // the same module (one instance per worker) with room to start the worker in
        { id: 'warm', name: 'warm', kind: 'module', entry: join(dir, 'waits.js'), timeoutMs: 60_000 },
      ],
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (text: string, agentId = 'waits') => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });
  const text = (r: { json: any }): string => r.json.result?.status?.message?.parts?.[0]?.text ?? '';

  const turnOf = (r: { json: any }): number => Number(/^turn (\d+) /.exec(text(r))?.[1]);
  // On a machine so loaded that the test sees the turn start only near its deadline, the deadline may pass before the
  // main thread is held: that try shows nothing, and another is made (at most three).
  for (let attempt = 1; attempt <= 3; attempt++) {
    // the worker is up and has loaded the agent: what follows is one turn on it
    const before = turnOf(await send('-', 'warm'));
    for (const f of ['started', 'go', 'done']) await rm(join(dir, f), { force: true });
    const sentAt = performance.now();
    const answer = send(dir);
    let answered = false;
    void answer.then(() => {
      answered = true;
    });
    // a turn that fails before its agent starts (its deadline passed while the machine was stalled) ends the wait too
    while (!existsSync(join(dir, 'started')) && !answered) await new Promise((r) => setTimeout(r, 5));
    // The turn runs, so its deadline is at most DEADLINE_MS away. From here the main thread reads nothing until the
    // agent has answered and the deadline has passed. Held in a setImmediate, as the gateway's own deferred work runs:
    // the event loop's next turn then starts with its timers, before it reads the worker's port.
    const held = await new Promise<{ at: number; done: boolean }>((resolve) =>
      setImmediate(() => {
        const at = performance.now();
        writeFileSync(join(dir, 'go'), '');
        // bounded: a turn whose deadline had already passed before this hold (its worker ended) never says done
        hold(() => existsSync(join(dir, 'done')) || performance.now() > at + 4 * DEADLINE_MS);
        const done = existsSync(join(dir, 'done'));
        const doneSeen = performance.now();
        // the worker posts its answer right after its agent's last step; then the deadline passes too
        if (done) hold(() => performance.now() > Math.max(at + DEADLINE_MS, doneSeen) + 250);
        resolve({ at, done });
      }),
    );
    const r = await answer;
    const late = held.at - sentAt > DEADLINE_MS - 1000 || !held.done || !existsSync(join(dir, 'started'));
    if (late && attempt < 3) {
      t.comment(`try ${attempt}: the turn was seen starting ${Math.round(held.at - sentAt)} ms after it was sent (done: ${held.done}); trying again`);
      continue;
    }
    // A completed turn on a fresh worker means that worker was replaced between the warm-up and this turn for another
    // reason than this turn's deadline (seen once in CI under load, cause not found: see docs/decisions.md); such a
    // try shows nothing about the deadline, and another is made.
    if (r.json.result?.status?.state === 'completed' && turnOf(r) === 1 && before !== 0 && attempt < 3) {
      // the pool's counters (turns by outcome, workers ended and recycled) say what ended the worker, for the next look
      const pool = (await (await fetch(`${gw.url}/metrics`)).text()).split('\n').filter((l) => l.startsWith('a2a_agent') && !l.endsWith(' 0'));
      const recycles = logged.filter((l) => l.includes('agent worker replaced')).join(' | ') || 'none';
      t.comment(
        `try ${attempt}: the turn ran on a fresh worker (the warm-up's was turn ${before}); trying again; pool: ${pool.join(', ')}; recycles logged: ${recycles}`,
      );
      continue;
    }
    t.equal(r.json.result?.status?.state, 'completed', `the turn keeps its result (${r.json.result?.status?.message?.metadata?.reason ?? '-'}: ${text(r)})`);
    t.equal(turnOf(r), before + 1, 'on the worker of the turn before');
    t.equal(turnOf(await send('-', 'warm')), before + 2, 'and its worker serves the next turn');
    break;
  }
});
