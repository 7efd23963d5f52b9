// The Redis per-workspace task sets (what an instance from before the listing sets lists a workspace from, so they are
// kept during a rolling upgrade): the sweep leaves no set behind, data written before the sets existed is indexed once
// on open (a marker keeps it to once; two opens at once agree), and tasks an older instance writes after that are added
// by the repair pass, in bounded steps. The sets are read raw, as that older instance reads them.
import t, { type Test } from 'tap';
import { createClient } from 'redis';
import type { TaskState } from '../../src/protocol/model.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import type { Store } from '../../src/runtime/store/types.js';
import { ALL_STATES } from '../support/tasks.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';
import { createTaskAsOldInstance } from '../support/legacy-redis-writer.js';

const T = Date.UTC(2026, 0, 1);

async function setup(t: Test, name: string) {
  const prefix = testPrefix(`ws-index-${name}`);
  const k = redisKeys(prefix);
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  const stores: Store[] = [];
  const open = async () => {
    const s = await openRedisStore({ url: REDIS_URL, prefix });
    stores.push(s);
    return s;
  };
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await raw.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  /** Every key under the prefix that is a workspace task set. */
  const workspaceSets = async () => {
    const out: string[] = [];
    for await (const batch of raw.scanIterator({ MATCH: `${k.idPrefix.workspaceTasks}*`, COUNT: 500 })) out.push(...batch);
    return out.sort();
  };
  /** The task keys in one workspace's set. */
  const members = async (workspace: string) => (await raw.sMembers(k.workspaceTasks(workspace))).sort();
  /** Writes a task through the store's own write path. */
  const make = async (s: Store, workspaceId: string, id: string, state: TaskState, updatedAt = T) => {
    if (!(await s.tasks.create({ ...sampleTask({ id, state }), workspaceId, updatedAt, seq: 1 }))) throw new Error(`${workspaceId}/${id} exists`);
  };
  return { prefix, k, raw, open, workspaceSets, members, make };
}

t.test('the sweep empties the workspace sets: once every task is swept no set is left', async (t) => {
  const { open, make, workspaceSets, k } = await setup(t, 'sweep');
  const s = await open();
  await make(s, 'A', 'a1', 'completed');
  await make(s, 'A', 'a2', 'failed');
  await make(s, 'B', 'b/1', 'canceled');
  await make(s, 'B', 'b2', 'working');
  t.strictSame(await workspaceSets(), [k.workspaceTasks('A'), k.workspaceTasks('B')], 'a set per workspace meanwhile');
  t.equal((await s.tasks.sweep({ endedBy: T, limit: 100 })).length, 3);
  t.strictSame(await workspaceSets(), [k.workspaceTasks('B')], "A's set went with its last task");
  t.equal(await s.tasks.put({ ...sampleTask({ id: 'b2', state: 'completed' }), workspaceId: 'B', updatedAt: T, seq: 2 }, { expectSeq: 1 }), true);
  t.equal((await s.tasks.sweep({ endedBy: T, limit: 100 })).length, 1);
  t.strictSame(await workspaceSets(), [], 'no workspace set left');
  t.strictSame(await s.tasks.listByState(ALL_STATES), []);
});

t.test('data from before the sets: indexed on open, once, by two instances opening at once', async (t) => {
  const { open, make, raw, k, workspaceSets, members } = await setup(t, 'migrate');
  const first = await open();
  t.equal(await raw.exists(k.workspaceTasksBuilt), 1, 'a fresh store is marked built');
  for (let i = 0; i < 1_100; i++) await make(first, 'A', `a${i}`, (['submitted', 'working', 'completed', 'input-required'] as const)[i % 4]!);
  await make(first, 'A-other', 'o1', 'working');
  await make(first, 'B', 'x/y', 'failed');
  // as the code before the sets left the data: no workspace set, no marker
  const sets = await workspaceSets();
  t.equal(sets.length, 3);
  await raw.del([...sets, k.workspaceTasksBuilt]);
  // and a state set entry whose record is gone (swept by hand, say): it must not come back as a set member
  await raw.sAdd(k.tasksInState('working'), 'C/ghost');

  await Promise.all([open(), open()]);
  t.equal(await raw.exists(k.workspaceTasksBuilt), 1, 'marked built');
  const a = await members('A');
  t.equal(a.length, 1_100, 'every task of A again');
  t.ok(
    a.every((x) => x.startsWith('A/')),
    'only A',
  );
  t.strictSame(await members('A-other'), ['A-other/o1']);
  t.strictSame(await members('B'), ['B/x/y']);
  t.strictSame(await workspaceSets(), [k.workspaceTasks('A'), k.workspaceTasks('A-other'), k.workspaceTasks('B')], 'no set for the ghost');

  // the marker keeps it to once: with the marker present, a lost set is not rebuilt on open
  await raw.del(k.workspaceTasks('B'));
  await open();
  t.strictSame(await members('B'), [], 'not rebuilt while marked');
});

t.test('tasks an older instance writes after the build: the repair pass adds them, a bounded step at a time', async (t) => {
  const { prefix, open, raw, k, members } = await setup(t, 'repair');
  const s = await open();
  t.equal(await raw.exists(k.workspaceTasksBuilt), 1, 'built on open');
  for (let i = 0; i < 1_100; i++) {
    const task = { ...sampleTask({ id: `old${i}`, state: i % 2 ? 'input-required' : 'completed' }), workspaceId: i % 3 ? 'A' : 'B', seq: 1 };
    if (!(await createTaskAsOldInstance({ client: raw, prefix, task }))) throw new Error(`old${i} exists`);
  }
  await raw.sAdd(k.tasksInState('working'), ['C/ghost', 'no-slash']);
  t.strictSame(await members('A'), [], 'the set misses them meanwhile');

  t.equal(await s.tasks.claimIndexRepair(60_000), true);
  const ttl = await raw.pTTL(k.workspaceTasksRepair);
  t.ok(ttl > 0 && ttl <= 60_000, 'the claim expires after the period');
  let cursor = '';
  let added = 0;
  let steps = 0;
  do {
    const step = await s.tasks.repairIndexStep(cursor);
    t.ok(step.added <= 1_000, 'each step adds a bounded number');
    added += step.added;
    cursor = step.cursor;
    steps++;
  } while (cursor !== '' && steps < 1_000);
  t.equal(added, 1_100, 'every task the old way wrote, once');
  t.ok(steps > 6, `the pass took several steps (${steps})`);
  t.equal((await members('A')).length, 733);
  t.equal((await members('B')).length, 367);
  t.equal(await raw.exists(k.workspaceTasks('C')), 0, 'a state entry whose record is gone indexes nothing');
  t.equal((await s.tasks.repairIndexStep('')).added, 0, 'a second pass finds nothing to add');
  await t.rejects(s.tasks.repairIndexStep('9:0'), /not a cursor of this pass/);
  await t.rejects(s.tasks.repairIndexStep('x'), /not a cursor of this pass/);
});
