// A module agent that leaves something behind in its worker costs a thread start on every such turn: the operator is
// told in the log, once per agent and kinds, which agent and what it left. Real gateway on port 0, its log captured.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createLog } from '../../src/runtime/log.js';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const AGENT = `
import { readFile } from 'node:fs';
let turns = 0;
export default async function* (ctx) {
  turns++;
  const [how, file] = ctx.message.parts[0].text.split(' ');
  if (how === 'timer') setInterval(() => {}, 60_000).unref();
  if (how === 'global') globalThis.leftHere = 1;
  // a read still in flight when the turn ends: its callback does nothing, or leaves a timer
  if (how === 'read') readFile(file, () => {});
  if (how === 'read-then-timer') readFile(file, () => setInterval(() => {}, 60_000).unref());
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'turn ' + turns } ] } };
}`;

/** A gateway whose agent `leaver` runs AGENT from a temp dir (one pool thread, so a kept worker is the same one), its info log captured. */
async function leaverGateway(t: Test, o: { dir: string }) {
  const dir = await mkdtemp(join(tmpdir(), o.dir));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'agent.js'), AGENT);
  const lines: string[] = [];
  const gw = await startTestGateway({
    log: createLog({ level: 'info', write: (l) => lines.push(l) }),
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true },
        { id: 'leaver', name: 'leaver', kind: 'module', entry: join(dir, 'agent.js'), timeoutMs: 60_000 },
      ],
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  return { gw, key, lines, dir };
}

t.test('a recycled worker is logged once per agent and what it left; a clean turn logs nothing', async (t) => {
  const { gw, key, lines } = await leaverGateway(t, { dir: 'a2a-recycle-log-' });
  const answer = (text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: 'leaver' } }) });
  const send = async (text: string) => (await answer(text)).json.result?.status?.state as string | undefined;
  const recycles = () =>
    lines
      .map((l) => JSON.parse(l))
      .filter((l) => String(l.msg).startsWith('agent worker replaced after a turn'))
      .map((l) => ({ agent: l.agent, left: l.left as string[] }));

  t.equal(await send('clean'), 'completed');
  t.same(recycles(), [], 'a clean turn keeps its worker and logs nothing');

  t.equal(await send('timer'), 'completed', 'the turn that leaves a timer keeps its result');
  t.equal(recycles().length, 1, 'its worker’s replacement is logged');
  t.equal(recycles()[0]?.agent, 'leaver', 'naming the agent');
  t.match(recycles()[0]?.left.join(', '), /Timeout/, 'and what it left running');

  t.equal(await send('timer'), 'completed');
  t.equal(recycles().length, 1, 'the same agent leaving the same again is not logged again');

  t.equal(await send('global'), 'completed');
  t.equal(recycles().length, 2, 'something else left is logged');
  t.match(recycles()[1]?.left.join(', '), /global/, 'naming the global change');

  t.equal(await send('clean'), 'completed');
  t.equal(recycles().length, 2, 'a clean turn after them logs nothing');
});

t.test("a file read still in flight at a turn's end is waited for: the worker is kept, unless its callback leaves something", async (t) => {
  const { gw, key, lines, dir } = await leaverGateway(t, { dir: 'a2a-recycle-read-' });
  // large enough that its read is still under way one event-loop turn after the agent's last event
  const big = join(dir, 'big.bin');
  await writeFile(big, Buffer.alloc(32 * 1024 * 1024, 1));
  const turnOf = async (text: string) => {
    const r = await gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: 'leaver' } }) });
    t.equal(r.json.result?.status?.state, 'completed', `${text.split(' ')[0]}: completed`);
    return Number(/^turn (\d+)$/.exec(r.json.result?.status?.message?.parts?.[0]?.text ?? '')?.[1]);
  };
  const recycled = () => lines.filter((l) => l.includes('agent worker replaced')).map((l) => JSON.parse(l).left as string[]);

  const first = await turnOf('clean');
  t.equal(await turnOf(`read ${big}`), first + 1);
  t.equal(await turnOf('clean'), first + 2, 'the read was waited for, and the worker kept');
  t.same(recycled(), [], 'nothing logged');

  await turnOf(`read-then-timer ${big}`);
  t.equal(await turnOf('clean'), 1, 'a read whose callback left a timer: the worker was replaced');
  t.match(recycled()[0]?.join(', '), /Timeout/, 'naming what the callback left');
});
