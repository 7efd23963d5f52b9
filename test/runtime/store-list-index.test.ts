// The listing index of both engines (LMDB: task-list; Redis: the tasks:list: sorted sets): a page read from it is the
// workspace's sorted listing cut (every filter, offset and total), stays so while tasks are written beside the reads,
// is kept by state changes, pages from cursors repeat nothing while tasks are written, and loses a task's entries when retention sweeps it.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { createClient } from 'redis';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import type { ListCursor, ListPage, ListPageQuery, Store } from '../../src/runtime/store/types.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';
import { ALL_STATES } from '../support/tasks.js';

const T0 = Date.UTC(2026, 5, 1);

interface Engine {
  name: string;
  open(): Promise<{ store: Store; raw: () => Promise<string[]>; destroy: () => Promise<void> }>;
}

/** Every raw listing index entry of the store, as text: what the sweep must leave none of. */
const engines: Engine[] = [
  {
    name: 'lmdb',
    async open() {
      const path = await mkdtemp(join(tmpdir(), 'a2a-list-index-'));
      const store = await openLmdbStore({ path });
      return {
        store,
        async raw() {
          const env = open({ path, noSubdir: false, maxDbs: 32 });
          const out: string[] = [];
          for (const name of [LMDB_DBS.taskList, LMDB_DBS.taskListAt, LMDB_DBS.taskListCount]) {
            for (const { key, value } of env.openDB({ name }).getRange()) out.push(`${name} ${JSON.stringify(key)} ${JSON.stringify(value)}`);
          }
          await env.close();
          return out;
        },
        async destroy() {
          await store.close();
          await rm(path, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'redis',
    async open() {
      const prefix = testPrefix('list-index');
      const store = await openRedisStore({ url: REDIS_URL, prefix });
      return {
        store,
        async raw() {
          const c = createClient({ url: REDIS_URL });
          c.on('error', () => {});
          await c.connect();
          const out: string[] = [];
          for await (const batch of c.scanIterator({ MATCH: `${redisKeys(prefix).idPrefix.taskList}*`, COUNT: 500 })) {
            for (const key of batch) {
              // the sorted sets, and the placement and agent counts hashes (their fields)
              const members = (await c.type(key)) === 'hash' ? await c.hKeys(key) : await c.zRange(key, 0, -1);
              for (const m of members) out.push(`${key} ${m}`);
            }
          }
          await c.close();
          return out;
        },
        async destroy() {
          await store.close();
          await cleanupPrefix(REDIS_URL, prefix);
        },
      };
    },
  },
];

const at = (ms: number) => new Date(ms).toISOString();
const task = (o: { id: string; ws?: string; ctx: string; state: TaskState; time: number; seq?: number }): Task => {
  const base = sampleTask({ id: o.id, state: o.state });
  return { ...base, workspaceId: o.ws ?? 'W', contextId: o.ctx, status: { ...base.status, timestamp: at(o.time) }, seq: o.seq ?? 1 };
};

/** The listing as the scan path makes it: filtered, newest status first, ties by id (ids here are ASCII). */
function expected(all: Iterable<Task>, q: Omit<ListPageQuery, 'after' | 'limit'>): string[] {
  return [...all]
    .filter(
      (x) =>
        x.workspaceId === q.workspaceId &&
        (q.contextId === undefined || x.contextId === q.contextId) &&
        (q.state === undefined || x.status.state === q.state) &&
        (q.since === undefined || Date.parse(x.status.timestamp) >= q.since),
    )
    .sort((a, b) => Date.parse(b.status.timestamp) - Date.parse(a.status.timestamp) || (a.id < b.id ? -1 : 1))
    .map((x) => x.id);
}

for (const engine of engines) {
  t.test(`${engine.name}: listing index`, async (t) => {
    t.test('a page is the sorted listing cut, for every filter, offset and total, after state changes', async (t) => {
      const { store, destroy } = await engine.open();
      t.teardown(destroy);
      const tasks = new Map<string, Task>();
      const states: TaskState[] = ['working', 'input-required', 'completed'];
      // equal times (i % 50) exercise the tie order; a neighbour whose workspace id begins with this one's is never read
      for (let i = 0; i < 300; i++) {
        const x = task({ id: `t${String((i * 37) % 300).padStart(3, '0')}`, ctx: `c${i % 3}`, state: states[i % 3]!, time: T0 + (i % 50) * 1_000 });
        tasks.set(x.id, x);
      }
      await Promise.all([...tasks.values()].map((x) => store.tasks.create(x)));
      await store.tasks.create(task({ id: 'n1', ws: 'W0', ctx: 'c0', state: 'working', time: T0 + 99_000 }));
      // a third of the unfinished ones move on (new state, new time), as a running task does
      let moved = 0;
      for (const x of [...tasks.values()].filter((x) => x.status.state !== 'completed').slice(0, 70)) {
        const next = { ...x, status: { ...x.status, state: 'completed' as const, timestamp: at(T0 + 60_000 + moved++ * 500) }, seq: 2 };
        t.equal(await store.tasks.put(next, { expectSeq: 1 }), true);
        tasks.set(x.id, next);
      }
      const queries: Array<Omit<ListPageQuery, 'after' | 'limit'>> = [
        { workspaceId: 'W' },
        { workspaceId: 'W', contextId: 'c1' },
        { workspaceId: 'W', state: 'working' },
        { workspaceId: 'W', state: 'completed' },
        { workspaceId: 'W', contextId: 'c2', state: 'completed' },
        { workspaceId: 'W', since: T0 + 40_000 },
        { workspaceId: 'W', contextId: 'c0', state: 'completed', since: T0 + 30_000 },
        { workspaceId: 'W', contextId: 'none' },
      ];
      for (const q of queries) {
        const want = expected(tasks.values(), q);
        for (const limit of [50, 37, 1]) {
          // page by page, each from the cursor the one before gave
          let after: ListCursor | undefined;
          let offset = 0;
          for (;;) {
            const page: ListPage = await store.tasks.listPage({ ...q, ...(after && { after }), limit });
            t.strictSame(
              page.tasks.map((x) => x.id),
              want.slice(offset, offset + limit),
              `${JSON.stringify(q)} from ${offset} by ${limit}`,
            );
            t.equal(page.total, want.length, `${JSON.stringify(q)}: the total`);
            offset += limit;
            if (!page.next) break;
            after = page.next;
          }
          t.ok(offset >= want.length, `${JSON.stringify(q)} by ${limit}: the last page says so`);
        }
        const past = await store.tasks.listPage({ ...q, after: { time: 0, id: '~' }, limit: 50 });
        t.strictSame(past.tasks, [], 'a cursor past the end: an empty page');
        t.equal(past.next, undefined);
      }
      t.equal((await store.tasks.listPage({ workspaceId: 'W0', limit: 10 })).total, 1, 'the neighbour has its own');
    });

    t.test('pages read while tasks are written: each page in order, no task on two pages, none that stayed skipped', async (t) => {
      const { store, destroy } = await engine.open();
      t.teardown(destroy);
      const before = Array.from({ length: 400 }, (_, i) =>
        task({ id: `old${String(i).padStart(3, '0')}`, ctx: 'c', state: 'working', time: T0 + (i % 97) * 1_000 }),
      );
      await Promise.all(before.map((x) => store.tasks.create(x)));
      const touched = new Set<string>();
      const seen = new Set<string>();
      let now = T0 + 1_000_000;
      let n = 0;
      let after: ListCursor | undefined;
      for (let offset = 0; ; offset += 25) {
        // the page is read while a new task is created and an older one moves on: both land on top of the listing
        const moving = before[(offset * 7) % before.length]!;
        touched.add(moving.id);
        const writes = [
          store.tasks.create(task({ id: `new${n++}`, ctx: 'c', state: 'submitted', time: now++ })),
          store.tasks.put({ ...moving, status: { ...moving.status, state: 'input-required', timestamp: at(now++) }, seq: 2 }, { expectSeq: 1 }),
        ];
        const [page] = await Promise.all([store.tasks.listPage({ workspaceId: 'W', ...(after && { after }), limit: 25 }), ...writes]);
        const times = page.tasks.map((x) => Date.parse(x.status.timestamp));
        t.ok(
          times.every((time, i) => i === 0 || time <= times[i - 1]!),
          `page at ${offset} is newest first`,
        );
        t.equal(new Set(page.tasks.map((x) => x.id)).size, page.tasks.length, `page at ${offset} holds each task once`);
        const again = page.tasks.filter((x) => seen.has(x.id)).map((x) => x.id);
        t.strictSame(again, [], `page at ${offset} repeats no task of an earlier page`);
        for (const x of page.tasks) seen.add(x.id);
        if (!page.next) break;
        after = page.next;
      }
      const skipped = before.filter((x) => !touched.has(x.id) && !seen.has(x.id)).map((x) => x.id);
      t.strictSame(skipped, [], 'every task not written meanwhile was on some page');
      // once the writes are over, the listing is whole again
      // every stored task of W, read apart from the listing index (the state sets recovery reads)
      const all = (await store.tasks.listByState(ALL_STATES)).filter((x) => x.workspaceId === 'W');
      const page = await store.tasks.listPage({ workspaceId: 'W', limit: 1_000 });
      t.strictSame(
        page.tasks.map((x) => x.id),
        expected(all, { workspaceId: 'W' }),
      );
      t.equal(page.total, all.length);
      t.equal((await store.tasks.listPage({ workspaceId: 'W', state: 'working', limit: 1 })).total, all.filter((x) => x.status.state === 'working').length);
    });

    t.test('retention takes a swept task out of every scope of the index', async (t) => {
      const { store, raw, destroy } = await engine.open();
      t.teardown(destroy);
      const ended = T0 + 10_000;
      for (let i = 0; i < 6; i++) {
        const x = task({ id: `gone${i}`, ctx: `c${i % 2}`, state: 'working', time: T0 + i });
        await store.tasks.create(x);
        await store.tasks.put({ ...x, status: { ...x.status, state: 'completed', timestamp: at(ended) }, updatedAt: ended, seq: 2 }, { expectSeq: 1 });
      }
      await store.tasks.create({ ...task({ id: 'stays', ctx: 'c0', state: 'completed', time: T0 }), updatedAt: ended + 1 });
      await store.tasks.create(task({ id: 'open', ctx: 'c1', state: 'working', time: T0 }));
      t.equal((await store.tasks.listPage({ workspaceId: 'W', limit: 50 })).total, 8);
      t.ok(
        (await raw()).some((e) => e.includes('gone3')),
        'the index holds them before the sweep',
      );

      const swept = await store.tasks.sweep({ endedBy: ended, limit: 100 });
      t.equal(swept.length, 6, 'the six ended by the cutoff go, the one ended after it stays');
      const left = await raw();
      t.strictSame(
        left.filter((e) => e.includes('gone')),
        [],
        'no entry of a swept task is left',
      );
      for (const q of [{}, { contextId: 'c0' }, { state: 'completed' as const }, { contextId: 'c1', state: 'completed' as const }]) {
        const page = await store.tasks.listPage({ workspaceId: 'W', ...q, limit: 50 });
        t.notOk(
          page.tasks.some((x) => x.id.startsWith('gone')),
          `${JSON.stringify(q)}: none listed`,
        );
        t.equal(page.total, page.tasks.length, `${JSON.stringify(q)}: the total counts what is left`);
      }
    });
  });
}

t.test('lmdb: an open indexes the tasks an earlier build wrote to the dir after this one, and drops those it swept', async (t) => {
  const path = await mkdtemp(join(tmpdir(), 'a2a-list-index-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  let store = await openLmdbStore({ path });
  for (let i = 0; i < 5; i++) await store.tasks.create(task({ id: `t${i}`, ctx: 'c', state: 'working', time: T0 + i }));
  await store.close();
  // what an earlier build does to the dir: writes tasks with no listing entry, and deletes one leaving its entries
  // (the open compares the counts of tasks and of indexed tasks: an earlier build that wrote as many as it swept
  // goes unseen)
  const env = open({ path, noSubdir: false, maxDbs: 32 });
  const tasks = env.openDB({ name: LMDB_DBS.tasks });
  await tasks.put('W/older', task({ id: 'older', ctx: 'c', state: 'completed', time: T0 + 100 }));
  await tasks.put('W/older2', task({ id: 'older2', ctx: 'c', state: 'working', time: T0 + 50 }));
  await tasks.remove('W/t2');
  await env.close();

  store = await openLmdbStore({ path });
  t.teardown(() => store.close());
  const page = await store.tasks.listPage({ workspaceId: 'W', limit: 50 });
  t.strictSame(
    page.tasks.map((x) => x.id),
    ['older', 'older2', 't4', 't3', 't1', 't0'],
  );
  t.equal(page.total, 6, 'the total counts what is stored');
  t.equal((await store.tasks.listPage({ workspaceId: 'W', contextId: 'c', state: 'working', limit: 50 })).total, 5);
});
