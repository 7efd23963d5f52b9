// kill -9 while a task streams: after the restart a resubscribe from the last event the client got resumes exactly
// (the recovery's failure, nothing twice), and one from the final event ends at once instead of waiting for good.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKeyCli, startChildServer } from '../support/child-server.js';
import { slowB } from '../support/gateway.js';
import { openSse, type SseFrame } from '../support/sse.js';

t.setTimeout(180_000);

/** every data frame until the stream ends, or 'open' if it is still open after `ms` (a stream that never ends) */
async function framesOrOpen(s: Awaited<ReturnType<typeof openSse>>, ms: number): Promise<SseFrame[] | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([s.all(), new Promise<'open'>((res) => (timer = setTimeout(() => res('open'), ms)))]);
  clearTimeout(timer);
  s.close();
  return r;
}

t.test('a stream cut by kill -9 resumes after the restart from Last-Event-ID, and a resubscribe from the end ends', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-kill-stream-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startChildServer({ dataDir });
  t.teardown(() => first.kill('SIGKILL'));
  const { key } = await createKeyCli(dataDir);

  const s = await openSse({ url: first.url, key, method: 'message/stream', params: slowB({ ms: 60_000, steps: 60 }) });
  const got: SseFrame[] = [];
  while (got.length < 3) {
    const f = await s.next();
    if (!f) break;
    if (f.data) got.push(f);
  }
  t.equal(got.length, 3, 'the task, its working status and a first chunk arrived');
  const taskId: string = got[0]!.data.result.id;
  await first.kill('SIGKILL');
  t.same(await framesOrOpen(s, 5_000), [], 'the cut stream ends with the process');

  const second = await startChildServer({ dataDir });
  t.teardown(() => second.kill('SIGKILL'));
  const lastSeen = got[got.length - 1]!.id!;
  const resumed = await framesOrOpen(
    await openSse({ url: second.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': lastSeen } }),
    10_000,
  );
  t.not(resumed, 'open', 'the resumed stream ends');
  const rest = resumed === 'open' ? [] : resumed;
  const ids = [...got, ...rest].map((f) => Number(f.id));
  t.strictSame(
    ids,
    ids.map((_, i) => ids[0]! + i),
    `nothing lost, nothing twice: ${ids.join(',')}`,
  );
  const end = rest[rest.length - 1]?.data?.result;
  t.equal(end?.status?.state, 'failed', 'the last event is the failure recovery stored');
  t.equal(end?.status?.message?.metadata?.reason, 'gateway_restart', 'with its reason');
  t.equal(end?.final, true, 'and it is final');

  // a client that got the final event but lost the connection before it saw the stream end asks again from there
  const fromEnd = await framesOrOpen(
    await openSse({ url: second.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': rest[rest.length - 1]!.id! } }),
    5_000,
  );
  t.same(fromEnd, [], 'a resubscribe from the final event ends at once, with nothing twice');
});
