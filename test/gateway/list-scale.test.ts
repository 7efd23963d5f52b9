// tasks/list over a workspace of thousands of tasks, through the real server: the page, its order, total and next
// token are exactly those of the whole listing sorted (newest status first, ties by id), and a listing that scans the
// workspace gives the event loop back as it reads, so another caller's call is answered while it runs instead of after it.
import t from 'tap';
import type { Task } from '../../src/protocol/model.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sampleTask } from '../support/store-records.js';

const N = 12_000;
const T0 = Date.UTC(2026, 5, 1);
let gw: TestGateway;
let key: string;
let all: Task[];

t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key()).key;
  // many equal status times (i % 997), so the tie order by id is exercised; states and contexts vary
  all = Array.from({ length: N }, (_, i) => {
    const base = sampleTask({ id: `task-${String((i * 7919) % N).padStart(5, '0')}`, state: i % 3 === 0 ? 'completed' : 'working' });
    return {
      ...base,
      workspaceId: 'ws1',
      contextId: `ctx-${i % 4}`,
      status: { ...base.status, timestamp: new Date(T0 + (i % 997) * 1_000).toISOString() },
      seq: 1,
    };
  });
  for (let i = 0; i < N; i += 1_000) await Promise.all(all.slice(i, i + 1_000).map((task) => gw.gw.store.tasks.create(task)));
});
t.teardown(() => gw.close());

const list = (params: Record<string, unknown>) => gw.rpc({ method: 'tasks/list', key, params });
const expected = (keep: (t: Task) => boolean) =>
  all
    .filter(keep)
    .sort((a, b) => Date.parse(b.status.timestamp) - Date.parse(a.status.timestamp) || (a.id < b.id ? -1 : 1))
    .map((x) => x.id);

t.test('pages of a large listing are the sorted listing cut in order, with its total and next token', async (t) => {
  const want = expected(() => true);
  for (const [offset, pageSize] of [
    [0, 100],
    [100, 100],
    [5_000, 37],
    [N - 10, 100],
  ] as const) {
    const r = (await list({ pageSize, ...(offset > 0 && { pageToken: String(offset) }) })).json.result;
    t.strictSame(
      r.tasks.map((x: { id: string }) => x.id),
      want.slice(offset, offset + pageSize),
      `offset ${offset}, page ${pageSize}`,
    );
    t.equal(r.totalSize, N, 'the total counts every task');
    t.equal(r.nextPageToken, offset + pageSize < N ? String(offset + pageSize) : '', 'the next token');
  }
});

t.test('filters apply before the page is cut, and the total counts the matching tasks only', async (t) => {
  const keep = (x: Task) => x.contextId === 'ctx-1' && x.status.state === 'completed';
  const want = expected(keep);
  const r = (await list({ contextId: 'ctx-1', state: 'completed', pageSize: 50, pageToken: '20' })).json.result;
  t.strictSame(
    r.tasks.map((x: { id: string }) => x.id),
    want.slice(20, 70),
  );
  t.equal(r.totalSize, want.length);
  const since = (await list({ statusTimestampAfter: new Date(T0 + 990_000).toISOString(), pageSize: 100 })).json.result;
  t.equal(since.totalSize, expected((x) => Date.parse(x.status.timestamp) >= T0 + 990_000).length, 'statusTimestampAfter counts from its time');
});

t.test('another caller is answered while a listing of the whole workspace runs', async (t) => {
  const one = all[0]!.id;
  // a key with an agent list: its listing still scans the workspace (one that sees every task reads the listing
  // index, a page's worth, over before a second call could come in)
  const limited = (await gw.key({ agents: ['echo'] })).key;
  let listed = false;
  const listing = gw.rpc({ method: 'tasks/list', key: limited, params: { pageSize: 100 } }).then((r) => {
    listed = true;
    return r;
  });
  // tasks/get one after another until the listing answers: a listing that held the event loop for its whole read
  // would leave them all waiting behind it
  let answeredMeanwhile = 0;
  while (!listed) {
    const got = await gw.rpc({ method: 'tasks/get', key, params: { id: one } });
    t.equal(got.json.result?.id, one);
    if (!listed) answeredMeanwhile++;
  }
  t.equal((await listing).json.result.totalSize, N);
  t.ok(answeredMeanwhile >= 2, `tasks/get answered while the listing ran (${answeredMeanwhile} calls)`);
});
