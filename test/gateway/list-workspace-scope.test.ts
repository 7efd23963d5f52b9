// Listing a workspace's tasks over HTTP on the shared Redis store: ListTasks, tasks/list and the dashboard's recent
// tasks list one workspace's tasks with right totals, however many tasks other workspaces hold, and never read those.
import t from 'tap';
import { pack } from 'msgpackr';
import { createClient } from 'redis';
import { ManualClock } from '../../src/runtime/clock.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { startTestGateway, msgB } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';

const V1 = { 'A2A-Version': '1.0' };
const OTHER_TASKS = 400;

t.test('ListTasks, tasks/list and the dashboard list only the workspace, on Redis, beside a busy workspace', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const prefix = testPrefix('list-scope');
  const gw = await startTestGateway({
    clock,
    timers: clock,
    config: { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix, dashboard: { enabled: true, sessionTtlMs: 60_000 } },
  });
  t.teardown(async () => {
    await gw.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const a = await gw.key({ workspace: 'A', trust: 'admin' });
  const b = await gw.key({ workspace: 'B' });
  const neighbour = await gw.key({ workspace: 'A-other' });

  const mine: string[] = [];
  for (let i = 0; i < 3; i++) {
    clock.advance(1_000);
    mine.push((await gw.rpc({ key: a.key, method: 'message/send', params: msgB(`a${i}`) })).json.result.id);
  }
  clock.advance(1_000);
  const waiting = (await gw.rpc({ key: a.key, method: 'message/send', params: msgB('hi', { metadata: { agentId: 'converse' } }) })).json.result;
  t.equal(waiting.status.state, 'input-required');
  mine.push(waiting.id);
  for (let i = 0; i < 3; i++) await gw.rpc({ key: b.key, method: 'message/send', params: msgB(`b${i}`) });
  await gw.rpc({ key: neighbour.key, method: 'message/send', params: msgB('next door') });
  // the busy workspace: many more tasks, written by the gateway's own store
  for (let i = 0; i < OTHER_TASKS; i++) {
    const task = { ...sampleTask({ id: `busy-${i}`, state: i % 2 ? 'working' : 'completed' }), workspaceId: 'B' };
    if (!(await gw.gw.store.tasks.create(task))) throw new Error(`busy-${i} exists`);
  }

  const all = await gw.rpc({ key: a.key, method: 'ListTasks', params: {}, headers: V1 });
  t.equal(all.json.result.totalSize, 4, "A's four tasks, none of B's or A-other's");
  t.same(all.json.result.tasks.map((x: { id: string }) => x.id).sort(), [...mine].sort());
  const seen: string[] = [];
  let token = '';
  for (let page = 0; page < 4; page++) {
    const r = await gw.rpc({ key: a.key, method: 'ListTasks', params: { pageSize: 3, ...(token && { pageToken: token }) }, headers: V1 });
    t.equal(r.json.result.totalSize, 4, 'the total on every page');
    seen.push(...r.json.result.tasks.map((x: { id: string }) => x.id));
    token = r.json.result.nextPageToken;
    if (!token) break;
  }
  t.same([...seen].sort(), [...mine].sort(), 'two pages, each task once');
  const completed = await gw.rpc({ key: a.key, method: 'tasks/list', params: { state: 'completed' }, headers: { 'A2A-Version': '0.3' } });
  t.equal(completed.json.result.totalSize, 3, 'tasks/list: the same listing, filtered by state');
  const inB = await gw.rpc({ key: b.key, method: 'ListTasks', params: { pageSize: 10 }, headers: V1 });
  t.equal(inB.json.result.totalSize, 3 + OTHER_TASKS, "B's listing holds all of B's");
  t.equal((await gw.rpc({ key: neighbour.key, method: 'ListTasks', params: {}, headers: V1 })).json.result.totalSize, 1, "A-other's its own one");

  const admin = async (path: string) => {
    const res = await fetch(`${gw.url}/api/admin${path}`, { headers: { Authorization: `Bearer ${a.key}` } });
    return { status: res.status, json: (await res.json()) as any };
  };
  const recent = await admin('/tasks');
  t.equal(recent.status, 200);
  t.same(
    recent.json.tasks.map((x: { id: string }) => x.id),
    [...mine].reverse(),
    "the dashboard: A's tasks only, newest first",
  );
  t.same(
    (await admin('/tasks?state=completed&limit=2')).json.tasks.map((x: { id: string }) => x.id),
    [mine[2], mine[1]],
    'filtered by state, newest first, limited',
  );
  t.same(
    (await admin('/tasks?agent=converse')).json.tasks.map((x: { id: string }) => x.id),
    [waiting.id],
    'filtered by agent',
  );

  // a record of B that cannot be read: a listing that read B's tasks would fail on it; A's listings do not
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  const k = redisKeys(prefix);
  await raw.set(k.task('B/unreadable'), pack({ id: 'unreadable', status: 'not a status' }));
  await raw.sAdd(k.tasksInState('working'), 'B/unreadable');
  await raw.close();
  t.equal((await admin('/tasks')).json.tasks.length, 4, "the dashboard's listing does not read B's tasks");
  t.equal((await gw.rpc({ key: a.key, method: 'ListTasks', params: {}, headers: V1 })).json.result.totalSize, 4, 'nor does ListTasks');
});
