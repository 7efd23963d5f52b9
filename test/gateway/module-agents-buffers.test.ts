// A module agent's Buffers, ArrayBuffers and typed arrays live outside V8's heap limit: the worker bounds them by the same
// setting (pool.maxHeapMb), fails the turn as worker_crash and replaces the worker. Real gateway on port 0, agents in
// the test's temp dir; a 64 MB cap keeps the allocations small.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const CAP_MB = 64;

const AGENTS: Record<string, string> = {
  // 8 x 16 MB = 128 MB kept, of each kind of buffer; then the agent goes on forever (yielding in a tight loop, where no
  // timer can run, or awaiting without an event), or ends its turn keeping them
  'buffers.js': `
const kept = [];
const MB = 1024 * 1024;
const make = [
  () => Buffer.alloc(16 * MB, 1),
  () => new Uint8Array(new ArrayBuffer(16 * MB)).fill(2),
  () => new Float64Array(2 * MB).fill(3),
  () => Buffer.allocUnsafe(16 * MB).fill(4),
];
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  if (how === 'shared') {
    // 128 MB of SharedArrayBuffers in one step, kept: a turn far shorter than the cap's 100 ms timer
    for (let i = 0; i < 8; i++) kept.push(new SharedArrayBuffer(16 * MB));
    yield { type: 'status', state: 'completed' };
    return;
  }
  if (how === 'measure') {
    const arrayBuffersMb = Math.round(process.memoryUsage().arrayBuffers / MB);
    yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'data', data: { arrayBuffersMb } }] } };
    return;
  }
  for (let i = 0; i < 8; i++) {
    kept.push(make[i % make.length]());
    if (how === 'events') yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'holding ' + (i + 1) * 16 + ' MB' }] } };
    if (how === 'awaits') await new Promise((r) => setTimeout(r, 150));
  }
  if (how === 'events') for (let i = 0; ; i++) yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'tick ' + i }] } };
  if (how === 'awaits') await new Promise(() => {});
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'kept ' + kept.length * 16 + ' MB' }] } };
}`,
};

t.test(`Buffers past the cap (pool.maxHeapMb: ${CAP_MB}) fail the turn and replace the worker`, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-buffers-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, src] of Object.entries(AGENTS)) await writeFile(join(dir, name), src);
  const gw = await startTestGateway({
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 },
        { id: 'buffers', name: 'buffers', kind: 'module', entry: join(dir, 'buffers.js'), timeoutMs: 20_000 },
      ],
      // one thread: the turn after a failed one would be served by the same worker, had it been kept
      pool: { maxHeapMb: CAP_MB, minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: 'buffers' } }) });

  for (const [how, when] of [
    ['events', 'then yielding in a tight loop'],
    ['awaits', 'then awaiting forever, yielding nothing'],
    ['one-step', 'all before its one event, kept at the end of its turn'],
  ] as const) {
    // the cap's message and reason (not the 20 s deadline's) say it was the cap that stopped the turn
    const r = await send(how);
    t.equal(r.json.result?.status?.state, 'failed', `${how}: allocating ${when} fails the turn`);
    t.equal(r.json.result?.status?.message?.metadata?.reason, 'worker_crash', `${how}: worker_crash`);
    t.match(
      r.json.result?.status?.message?.parts?.[0]?.text,
      new RegExp(`Buffers and ArrayBuffers took \\d+ MB in its worker, past the cap of ${CAP_MB} MB \\(pool\\.maxHeapMb\\)`),
      `${how}: says why, naming the setting`,
    );
    const after = await send('measure');
    const mb: number = after.json.result?.status?.message?.parts?.[0]?.data?.arrayBuffersMb;
    t.ok(mb < 16, `${how}: the next turn runs on a fresh worker (${mb} MB of buffers there)`);
  }
  // SharedArrayBuffers: V8's cheap count leaves them out, so the turn's end measures them when the turn made one
  const shared = await send('shared');
  t.equal(shared.json.result?.status?.state, 'failed', 'shared: SharedArrayBuffers kept past the cap fail even a short turn');
  t.equal(shared.json.result?.status?.message?.metadata?.reason, 'worker_crash', 'shared: worker_crash');
  t.match(shared.json.result?.status?.message?.parts?.[0]?.text, /Buffers and ArrayBuffers took \d+ MB in its worker, past the cap/, 'shared: says why');
  const fresh = await send('measure');
  t.ok(fresh.json.result?.status?.message?.parts?.[0]?.data?.arrayBuffersMb < 16, 'shared: the next turn runs on a fresh worker');
  const echo = await gw.rpc({ key, method: 'message/send', params: msgB('still here') });
  t.equal(echo.json.result?.status?.state, 'completed', 'the gateway goes on');
});
