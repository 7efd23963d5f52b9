// tasks/list for a key limited to agents (its agent list, an agent's URL), through the real server on both engines:
// served from the listing index, it pages only its agents' tasks in listing order with their total, alone or with a
// state, a context or a time, never another agent's, and reads no task of another agent (a damaged one is never met);
// a sparse agent's tasks are reached across short pages; the index's rebuild (LMDB open, Redis build and repair
// pass) puts back the per-agent counts.
import t, { type Test } from 'tap';
import { createClient } from 'redis';
import type { AgentSpec } from '../../src/protocol/agent-events.js';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import type { TestGateway } from '../support/gateway.js';
import { damageStoredTask, listingEngines, stoppableGateway } from '../support/listing-stage.js';
import { REDIS_URL } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';

const T0 = Date.UTC(2026, 5, 1);
const ENGINES = listingEngines({ prefix: 'list-agents' });

const AGENTS = ['a1', 'a2', 'a3'];
const STATES: TaskState[] = ['completed', 'working', 'failed'];

/** Task i: agent a1..a3 by i, state by i / 3 (so each agent has each state), one of 7 contexts; newer as i grows. */
const make = (i: number, agentId = AGENTS[i % 3]!): Task => {
  const base = sampleTask({ id: `t${String(i).padStart(4, '0')}`, state: STATES[Math.floor(i / 3) % 3]! });
  return {
    ...base,
    workspaceId: 'ws1',
    agentId,
    contextId: `ctx-${i % 7}`,
    status: { ...base.status, timestamp: new Date(T0 + i * 1_000).toISOString() },
    seq: 1,
  };
};

/** Every page of a listing from the top, by tokens; each page's totalSize. */
async function pageAll(gw: TestGateway, o: { key: string; params: Record<string, unknown>; path?: string }) {
  const ids: string[] = [];
  const totals = new Set<number>();
  let token: string | undefined;
  for (let pages = 0; pages < 500; pages++) {
    const answer = (
      await gw.rpc({ method: 'tasks/list', key: o.key, params: { ...o.params, ...(token && { pageToken: token }) }, ...(o.path && { path: o.path }) })
    ).json;
    if (answer.error) throw new Error(JSON.stringify(answer.error));
    ids.push(...answer.result.tasks.map((x: { id: string }) => x.id));
    totals.add(answer.result.totalSize);
    token = answer.result.nextPageToken;
    if (!token) break;
  }
  return { ids, totals: [...totals] };
}

/** The expected listing: tasks newest first (a higher i is newer). */
const expected = (tasks: Task[], keep: (x: Task) => boolean) =>
  tasks
    .filter(keep)
    .sort((a, b) => Date.parse(b.status.timestamp) - Date.parse(a.status.timestamp))
    .map((x) => x.id);

for (const engine of ENGINES) {
  t.test(`${engine.name}: a key limited to agents lists its agents' tasks only, with their totals, under every filter`, async (t: Test) => {
    const config = engine.config();
    const st = await stoppableGateway(t, { config, dir: 'list-agents' });
    const lines: string[] = [];
    const n = 600;
    const tasks = Array.from({ length: n }, (_, i) => make(i));
    for (let i = 0; i < n; i += 200) await Promise.all(tasks.slice(i, i + 200).map((x) => st.gw.gw.store.tasks.create(x)));
    // an a2 task's record damaged where it is stored: a listing for a1 and a3 has no reason to read it
    const gw = await st.restart({
      meanwhile: () => damageStoredTask({ config, dataDir: st.dataDir, workspace: 'ws1', id: 't0001' }),
      log: (msg) => lines.push(msg),
    });
    const { key } = await gw.key({ agents: ['a1', 'a3'] });
    const mine = (x: Task) => x.agentId === 'a1' || x.agentId === 'a3';

    const cases: Array<{ name: string; params: Record<string, unknown>; keep: (x: Task) => boolean }> = [
      { name: 'no filter', params: {}, keep: () => true },
      { name: 'a state', params: { state: 'working' }, keep: (x) => x.status.state === 'working' },
      { name: 'a context', params: { contextId: 'ctx-3' }, keep: (x) => x.contextId === 'ctx-3' },
      { name: 'a context and a state', params: { contextId: 'ctx-3', state: 'failed' }, keep: (x) => x.contextId === 'ctx-3' && x.status.state === 'failed' },
      {
        name: 'a time',
        params: { statusTimestampAfter: new Date(T0 + 400_000).toISOString() },
        keep: (x) => Date.parse(x.status.timestamp) >= T0 + 400_000,
      },
    ];
    for (const c of cases) {
      const want = expected(tasks, (x) => mine(x) && c.keep(x));
      const got = await pageAll(gw, { key, params: { ...c.params, pageSize: 37 } });
      t.strictSame(got.ids, want, `${c.name}: every a1 and a3 task, once, newest first, across pages`);
      t.strictSame(got.totals, [want.length], `${c.name}: each page's totalSize is the match count (${want.length})`);
    }
    // the URL's agent narrows a key to one agent; one it may not reach lists nothing
    const viaUrl = await pageAll(gw, { key, params: { pageSize: 50 }, path: '/api/a2a/agents/a3' });
    t.strictSame(
      viaUrl.ids,
      expected(tasks, (x) => x.agentId === 'a3'),
      "the URL's agent: its tasks only",
    );
    t.strictSame(viaUrl.totals, [200]);
    const other = await pageAll(gw, { key, params: { pageSize: 50 }, path: '/api/a2a/agents/a2' });
    t.strictSame(other, { ids: [], totals: [0] }, 'an agent the key may not reach: nothing, total 0');
    // an agent that refuses the key (a relay agent's permitted keys), and one whose trust level caps tasks.read: a key
    // without an agent list lists every other agent's tasks, with the total the counts give
    const refusing = (id: string, o: Partial<AgentSpec>) => {
      const found = gw.gw.agents.find('ws1', 'echo')!;
      gw.gw.agents.add({
        spec: { ...found.spec, id, name: id, workspace: 'ws1', default: false, ...o },
        runner: found.runner,
        ...(id === 'a2' ? { reach: () => false } : { scopes: new Set() }),
      });
    };
    refusing('a2', {});
    refusing('a3', {});
    const { key: whole } = await gw.key();
    const refused = await pageAll(gw, { key: whole, params: { pageSize: 50 } });
    t.strictSame(
      refused.ids,
      expected(tasks, (x) => x.agentId === 'a1'),
      'every agent but the two that refuse it',
    );
    t.strictSame(refused.totals, [200]);
    const refusedInState = await pageAll(gw, { key: whole, params: { pageSize: 50, state: 'working' } });
    t.strictSame(
      refusedInState.ids,
      expected(tasks, (x) => x.agentId === 'a1' && x.status.state === 'working'),
      'and with a state',
    );
    t.strictSame(refusedInState.totals, [refusedInState.ids.length]);
    t.notOk(
      lines.some((l) => l.startsWith('damaged stored record')),
      'no a2 task was read for these listings (its damaged record was never met): the page comes from the index, not a scan',
    );
  });

  t.test(`${engine.name}: an agent with few tasks among many is reached across short pages; the rebuild restores the counts`, async (t: Test) => {
    const config = engine.config();
    const st = await stoppableGateway(t, { config, dir: 'list-agents' });
    let gw = st.gw;
    const n = 5_000;
    // 'rare' ran the oldest task and one in the middle; the rest are a1..a3's
    const tasks = Array.from({ length: n }, (_, i) => make(i, i === 0 || i === 2_505 ? 'rare' : undefined));
    for (let i = 0; i < n; i += 500) await Promise.all(tasks.slice(i, i + 500).map((x) => gw.gw.store.tasks.create(x)));
    // a task that changes state and one that is swept move the counts too
    t.ok(await gw.gw.store.tasks.put({ ...tasks[2_505]!, status: { ...tasks[2_505]!.status, state: 'canceled' }, seq: 2 }), "rare's working task canceled");
    const { key } = await gw.key({ agents: ['rare'] });
    const all = await pageAll(gw, { key, params: { pageSize: 10 } });
    t.strictSame(all.ids, ['t2505', 't0000'], "both of rare's tasks, newest first, whatever lies between them");
    t.strictSame(all.totals, [2], 'every page says 2');
    const canceled = await pageAll(gw, { key, params: { pageSize: 10, state: 'canceled' } });
    t.strictSame(canceled, { ids: ['t2505'], totals: [1] }, "rare's canceled task: its state's count moved with it");

    // the index's agent counts taken away, as a store an older build wrote would hold them; the rebuild puts them back
    gw = await st.restart({
      meanwhile: async () => {
        if (config.redisPrefix) {
          const k = redisKeys(config.redisPrefix);
          const raw = createClient({ url: REDIS_URL });
          raw.on('error', () => {});
          await raw.connect();
          await raw.del([k.taskListPlaced('ws1'), k.taskListAgentCounts('ws1'), k.taskListAgentsBuilt]);
          await raw.close();
        } else {
          const { open } = await import('lmdb');
          const { LMDB_DBS } = await import('../../src/runtime/store/lmdb/index.js');
          const env = open({ path: `${st.dataDir}/store`, noSubdir: false, maxDbs: 32 });
          for (const name of [LMDB_DBS.taskList, LMDB_DBS.taskListAt, LMDB_DBS.taskListCount]) await env.openDB({ name }).clearAsync();
          await env.close();
        }
      },
    });
    const { key: k2 } = await gw.key({ agents: ['rare', 'a2'] });
    const rebuilt = await pageAll(gw, { key: k2, params: { pageSize: 100, state: 'canceled' } });
    t.strictSame(rebuilt, { ids: ['t2505'], totals: [1] }, 'after the rebuild: the state and agent counts are back');
    const twoAgents = await pageAll(gw, { key: k2, params: { pageSize: 100 } });
    const want = expected(tasks, (x) => x.agentId === 'rare' || x.agentId === 'a2');
    t.strictSame(twoAgents.ids, want, "rare's and a2's tasks, once each, in order");
    t.strictSame(twoAgents.totals, [want.length]);

    if (config.redisPrefix) {
      // the periodic repair pass mends what an older instance's writes left out of the counts
      const k = redisKeys(config.redisPrefix);
      const raw = createClient({ url: REDIS_URL });
      raw.on('error', () => {});
      await raw.connect();
      await raw.del([k.taskListPlaced('ws1'), k.taskListAgentCounts('ws1')]);
      await raw.close();
      let cursor = '';
      do cursor = (await gw.gw.store.tasks.repairIndexStep(cursor)).cursor;
      while (cursor !== '');
      const repaired = await pageAll(gw, { key: k2, params: { pageSize: 100 } });
      t.strictSame(repaired.totals, [want.length], 'after a repair pass: the total is right again');
    }
  });
}
