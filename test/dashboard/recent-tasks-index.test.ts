// The admin API's recent tasks (GET /tasks, the dashboard's tasks view) on both engines: read from the tasks/list index,
// newest status first, with the state and agent filters and the limit, in the same response shape; a task further down
// (or another agent's) is never read (a damaged one is never met); a task rewritten without a status change (an
// artifact) keeps its place at its status time.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import type { ConfigInput } from '../../src/config.js';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { taskKey } from '../../src/runtime/store/types.js';
import { adminCall } from '../support/admin-api.js';
import { startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';

const T0 = Date.UTC(2026, 5, 1);
const ENGINES: Array<{ name: string; config: () => ConfigInput & { redisPrefix?: string } }> = [
  { name: 'lmdb', config: () => ({ dashboard: { enabled: true } }) },
  { name: 'redis', config: () => ({ dashboard: { enabled: true }, store: 'redis', redisUrl: REDIS_URL, redisPrefix: testPrefix('recent-tasks') }) },
];
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
    const dataDir = await mkdtemp(join(tmpdir(), 'a2a-recent-tasks-'));
    let tg = await startTestGateway({ config, dataDir });
    t.teardown(async () => {
      await tg.close();
      await rm(dataDir, { recursive: true, force: true });
      if (config.redisPrefix) await cleanupPrefix(REDIS_URL, config.redisPrefix);
    });
    const n = 1_500;
    const tasks = Array.from({ length: n }, (_, i) => make(i));
    // task 1,003 is created working, and later completed with an artifact at its status's time: a rewrite that moves
    // its updatedAt past every other task's, not its status time
    const moved = tasks[1_003]!;
    tasks[1_003] = { ...moved, status: { ...moved.status, state: 'working' } };
    for (let i = 0; i < n; i += 500) await Promise.all(tasks.slice(i, i + 500).map((x) => tg.gw.store.tasks.create(x)));
    const rewritten = {
      ...moved,
      updatedAt: T0 + 10 * n * 1_000,
      seq: 2,
      artifacts: [...moved.artifacts, { ...moved.artifacts[0]!, artifactId: 'late', index: moved.artifacts.length }],
    };
    t.ok(await tg.gw.store.tasks.put(rewritten), 'rewritten with an artifact');
    // the oldest task's record (an a1 task) damaged where it is stored: the newest tasks have no reason to read it
    await tg.close();
    const damaged = taskKey('acme', 't0000');
    if (config.redisPrefix) {
      const raw = createClient({ url: REDIS_URL });
      raw.on('error', () => {});
      await raw.connect();
      await raw.set(redisKeys(config.redisPrefix).task(damaged), 'not msgpack of a task');
      await raw.close();
    } else {
      const { open } = await import('lmdb');
      const { LMDB_DBS } = await import('../../src/runtime/store/lmdb/index.js');
      const env = open({ path: `${dataDir}/store`, noSubdir: false, maxDbs: 32 });
      await env.openDB({ name: LMDB_DBS.tasks }).put(damaged, { id: 't0000', status: 'not a status' });
      await env.close();
    }
    const lines: string[] = [];
    tg = await startTestGateway({ config, dataDir, log: (msg) => lines.push(msg) });
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
