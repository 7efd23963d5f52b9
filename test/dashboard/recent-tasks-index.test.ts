// The admin API's recent tasks (GET /tasks, the dashboard's tasks view) on both engines: read from the tasks/list index,
// newest status first, with the state and agent filters and the limit, in the same response shape; a task further down
// (or another agent's) is never read (a damaged one is never met); a task rewritten without a status change (an
// artifact) keeps its place at its status time.
import t, { type Test } from 'tap';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { adminCall } from '../support/admin-api.js';
import { damageStoredTask, listingEngines, stoppableGateway } from '../support/listing-stage.js';
import { sampleTask } from '../support/store-records.js';

const T0 = Date.UTC(2026, 5, 1);
const ENGINES = listingEngines({ prefix: 'recent-tasks', config: { dashboard: { enabled: true } } });
const AGENTS = ['a1', 'a2', 'a3'];
// finished: start-up recovery reads only unfinished tasks, so nothing but the view could meet the damaged one
const STATES: TaskState[] = ['completed', 'canceled', 'failed'];

/** Task i: newer as i grows (status time and updatedAt alike); agent and state by i; 'rare' ran task 5. */
const make = (i: number): Task => {
  const base = sampleTask({ id: `t${String(i).padStart(4, '0')}`, state: STATES[Math.floor(i / 3) % 3]! });
  const at = T0 + i * 1_000;
  return {
    ...base,
    workspaceId: 'acme',
    agentId: i === 5 ? 'rare' : AGENTS[i % 3]!,
    status: { ...base.status, timestamp: new Date(at).toISOString() },
    createdAt: at,
    updatedAt: at,
    seq: 1,
  };
};

for (const engine of ENGINES) {
  t.test(`${engine.name}: recent tasks come from the listing index, newest status first, filtered, in their shape`, async (t: Test) => {
    const config = engine.config();
    const st = await stoppableGateway(t, { config, dir: 'recent-tasks' });
    const n = 1_500;
    const tasks = Array.from({ length: n }, (_, i) => make(i));
    // task 1,003 is created working, and later completed with an artifact at its status's time: a rewrite that moves
    // its updatedAt past every other task's, not its status time
    const moved = tasks[1_003]!;
    tasks[1_003] = { ...moved, status: { ...moved.status, state: 'working' } };
    for (let i = 0; i < n; i += 500) await Promise.all(tasks.slice(i, i + 500).map((x) => st.gw.gw.store.tasks.create(x)));
    const rewritten = {
      ...moved,
      updatedAt: T0 + 10 * n * 1_000,
      seq: 2,
      artifacts: [...moved.artifacts, { ...moved.artifacts[0]!, artifactId: 'late', index: moved.artifacts.length }],
    };
    t.ok(await st.gw.gw.store.tasks.put(rewritten), 'rewritten with an artifact');
    // the oldest task's record (an a1 task) damaged where it is stored: the newest tasks have no reason to read it
    const lines: string[] = [];
    const tg = await st.restart({
      meanwhile: () => damageStoredTask({ config, dataDir: st.dataDir, workspace: 'acme', id: 't0000' }),
      log: (msg) => lines.push(msg),
    });
    const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
    const get = async (query: string) => {
      const r = await adminCall(tg, 'GET', `/tasks${query}`, { bearer: admin.key });
      t.equal(r.status, 200, `GET /tasks${query}`);
      return r.json.tasks as Array<Record<string, unknown>>;
    };
    const newest = (keep: (x: Task) => boolean, limit: number) =>
      tasks
        .filter(keep)
        .reverse()
        .slice(0, limit)
        .map((x) => x.id);

    const page = await get('?limit=500');
    t.strictSame(
      page.map((x) => x.id),
      newest(() => true, 500),
      'the newest 500 by status time: the rewritten task keeps its place',
    );
    const first = page[0]!;
    t.strictSame(Object.keys(first).sort(), ['agent', 'artifacts', 'context_id', 'created_at', 'dialect', 'id', 'messages', 'state', 'updated_at']);
    t.match(first, { id: 't1499', agent: 'a3', state: STATES[Math.floor(1_499 / 3) % 3], updated_at: new Date(T0 + 1_499_000).toISOString() });
    t.strictSame((await get('')).length, 50, 'the default limit');
    t.strictSame(
      (await get('?state=canceled&limit=120')).map((x) => x.id),
      newest((x) => x.status.state === 'canceled', 120),
      'a state',
    );
    t.strictSame(
      (await get('?agent=a2&limit=80')).map((x) => x.id),
      newest((x) => x.agentId === 'a2' && x.id !== 't0005', 80),
      'an agent',
    );
    t.strictSame(
      (await get('?agent=a2&state=failed&limit=500')).map((x) => x.id),
      newest((x) => x.agentId === 'a2' && x.status.state === 'failed', 500),
      'an agent and a state, fewer than the limit',
    );
    t.strictSame(
      (await get('?agent=rare&limit=10')).map((x) => x.id),
      ['t0005'],
      "an agent with one task among 1,500: found, past every other agent's entries",
    );
    t.notOk(
      lines.some((l) => l.startsWith('damaged stored record')),
      'the damaged oldest task was never read: the view reads its page, not the workspace',
    );
  });
}
