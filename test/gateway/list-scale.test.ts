// tasks/list over a workspace of thousands of tasks, through the real server: the pages, followed by their tokens, their
// order and total are exactly those of the whole listing sorted (newest status first, ties by id), for a key that sees every
// task and for one limited to agents alike.
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

t.test('pages of a large listing, each from the token the one before gave, are the sorted listing cut in order', async (t) => {
  const want = expected(() => true);
  const got: string[] = [];
  let token = '';
  for (;;) {
    const r = (await list({ pageSize: 100, ...(token && { pageToken: token }) })).json.result;
    t.equal(r.totalSize, N, 'the total counts every task');
    got.push(...r.tasks.map((x: { id: string }) => x.id));
    token = r.nextPageToken;
    if (!token) break;
  }
  t.strictSame(got, want, 'every task once, in listing order; the last page has no next token');
  // a key limited to agents reads the index kept to its agents (every task here is echo's): the same listing, the same tokens
  const limited = (await gw.key({ agents: ['echo'] })).key;
  let r = (await gw.rpc({ method: 'tasks/list', key: limited, params: { pageSize: 37 } })).json.result;
  const scanned: string[] = r.tasks.map((x: { id: string }) => x.id);
  for (let pages = 1; pages < 3; pages++) {
    r = (await gw.rpc({ method: 'tasks/list', key: limited, params: { pageSize: 37, pageToken: r.nextPageToken } })).json.result;
    scanned.push(...r.tasks.map((x: { id: string }) => x.id));
  }
  t.strictSame(scanned, want.slice(0, 111), 'the limited key pages alike');
  t.equal(r.totalSize, N);
});

t.test('filters apply before the page is cut, and the total counts the matching tasks only', async (t) => {
  const keep = (x: Task) => x.contextId === 'ctx-1' && x.status.state === 'completed';
  const want = expected(keep);
  const first = (await list({ contextId: 'ctx-1', state: 'completed', pageSize: 20 })).json.result;
  const r = (await list({ contextId: 'ctx-1', state: 'completed', pageSize: 50, pageToken: first.nextPageToken })).json.result;
  t.strictSame(
    r.tasks.map((x: { id: string }) => x.id),
    want.slice(20, 70),
  );
  t.equal(r.totalSize, want.length);
  const since = (await list({ statusTimestampAfter: new Date(T0 + 990_000).toISOString(), pageSize: 100 })).json.result;
  t.equal(since.totalSize, expected((x) => Date.parse(x.status.timestamp) >= T0 + 990_000).length, 'statusTimestampAfter counts from its time');
});
