// The store contract, run unchanged against both engines: LMDB in a fresh temp dir and the real Redis under a unique prefix.
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { open } from 'lmdb';
import { pack } from 'msgpackr';
import { createClient, RESP_TYPES } from 'redis';
import { taskKey, type ClaimedPushJob, type ListCursor, type Store } from '../../src/runtime/store/types.js';
import { dueBefore, queueOf } from '../../src/runtime/store/push-queues.js';
import type { PushJob } from '../../src/protocol/records.js';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { ALL_STATES as ALL } from '../support/tasks.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { countLoopTurns } from '../support/loop-turns.js';
import { sampleConnection, sampleConnectionStatus, sampleKey, samplePushConfig, samplePushJob, sampleResult, sampleTask } from '../support/store-records.js';

// every engine's contract, plus child processes writing LMDB: 15-50 s quiet, past tap's 120 s per file under CI load
t.setTimeout(360_000);

/** One place holding data; every open() on it is another store instance over the same data. */
interface Location {
  open(): Promise<Store>;
  /** Plants, where the engine keeps task `id`, a value no Task schema accepts. */
  corruptTask(id: string): Promise<void>;
  /** Everything still stored that names `needle`, read raw (keys, index entries, members, values): retention leaves none. */
  residue(needle: string): Promise<string[]>;
  /** Closes every store opened here, then removes the data. */
  destroy(): Promise<void>;
}

interface Engine {
  name: 'lmdb' | 'redis';
  location(name: string): Promise<Location>;
}

function tracking(openOne: () => Promise<Store>) {
  const opened: Store[] = [];
  return {
    async open() {
      const s = await openOne();
      opened.push(s);
      return s;
    },
    closeAll: () => Promise.all(opened.map((s) => s.close())),
  };
}

const lmdbEngine: Engine = {
  name: 'lmdb',
  async location() {
    const path = await mkdtemp(join(tmpdir(), 'a2a-store-'));
    const stores = tracking(() => openLmdbStore({ path }));
    return {
      open: stores.open,
      async corruptTask(id) {
        const raw = open({ path, noSubdir: false, maxDbs: 32 });
        await raw.openDB({ name: LMDB_DBS.tasks }).put(taskKey('ws-a', id), { id, status: 'not a status' });
        await raw.close();
      },
      async residue(needle) {
        const raw = open({ path, noSubdir: false, maxDbs: 32 });
        const out: string[] = [];
        for (const name of Object.values(LMDB_DBS)) {
          const db =
            name === LMDB_DBS.tasksByState
              ? raw.openDB({ name, dupSort: true, encoding: 'ordered-binary' })
              : raw.openDB({ name, encoding: name === LMDB_DBS.taskState ? 'string' : 'msgpack' });
          for (const { key, value } of db.getRange()) {
            const text = `${name} ${JSON.stringify(key)} ${JSON.stringify(value)}`;
            if (text.includes(needle)) out.push(text);
          }
        }
        await raw.close();
        return out;
      },
      async destroy() {
        await stores.closeAll();
        await rm(path, { recursive: true, force: true });
      },
    };
  },
};

const redisEngine: Engine = {
  name: 'redis',
  async location(name) {
    const prefix = testPrefix(`store-${name}`);
    const stores = tracking(() => openRedisStore({ url: REDIS_URL, prefix }));
    return {
      open: stores.open,
      async corruptTask(id) {
        const c = createClient({ url: REDIS_URL });
        c.on('error', () => {});
        await c.connect();
        await c.set(redisKeys(prefix).task(taskKey('ws-a', id)), pack({ id, status: 'not a status' }));
        await c.close();
      },
      async residue(needle) {
        const c = createClient({ url: REDIS_URL });
        c.on('error', () => {});
        await c.connect();
        const out: string[] = [];
        const b = c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
        for await (const batch of c.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
          for (const key of batch) {
            if (key.includes(needle)) out.push(key);
            const type = await c.type(key);
            const members =
              type === 'set'
                ? await b.sMembers(key)
                : type === 'zset'
                  ? await b.zRange(key, 0, -1)
                  : type === 'hash'
                    ? Object.values(await b.hGetAll(key))
                    : [];
            for (const m of members as unknown as Buffer[]) if (Buffer.from(m).includes(needle)) out.push(`${key} holds ${needle}`);
          }
        }
        await c.close();
        return out;
      },
      async destroy() {
        await stores.closeAll();
        await cleanupPrefix(REDIS_URL, prefix);
      },
    };
  },
};

const ids = (xs: ReadonlyArray<{ id: string }>): string[] => xs.map((x) => x.id).sort();

/** Every task of one workspace as tasks/list reads them: from the listing index, a page at a time. */
/** An artifact chunk event, as a stream's events are stored */
const chunk = (seq: number) => ({
  seq,
  kind: 'artifact' as const,
  artifact: { artifactId: 'a1', index: 0, parts: [{ kind: 'text' as const, text: `chunk ${seq}` }], append: true },
  append: true,
  lastChunk: false,
});

async function listedTasks(s: Store, workspaceId: string): Promise<Task[]> {
  const out: Task[] = [];
  let after: ListCursor | undefined;
  do {
    const page = await s.tasks.listPage({ workspaceId, limit: 1_000, ...(after && { after }) });
    out.push(...page.tasks);
    after = page.next;
  } while (after);
  return out;
}

function storeContract(engine: Engine) {
  t.test(`${engine.name} store contract`, async (t) => {
    /** A fresh location for one subtest, destroyed when it ends. */
    const fresh = async (name: string) => {
      const loc = await engine.location(name);
      t.teardown(() => loc.destroy());
      return loc;
    };

    t.test('kind names the engine', async (t) => {
      const s = await (await fresh('kind')).open();
      t.equal(s.kind, engine.name);
    });

    t.test('keys: put, get, getByHash, list with a workspace filter', async (t) => {
      const s = await (await fresh('keys')).open();
      const k1 = sampleKey({ id: 'k1', workspaceId: 'ws-a' });
      const k2 = { ...sampleKey({ id: 'k2', workspaceId: 'ws-a' }), name: undefined, limits: undefined };
      const k3 = sampleKey({ id: 'k3', workspaceId: 'ws-b' });
      for (const k of [k1, k2, k3]) await s.keys.put(k);

      t.strictSame(await s.keys.get('k1'), k1);
      t.strictSame(await s.keys.getByHash(k3.hash), k3);
      const back2 = await s.keys.get('k2');
      t.equal(back2?.name, undefined, 'an absent optional field stays absent');
      t.equal(back2?.limits, undefined);
      t.equal(await s.keys.get('nope'), undefined, 'unknown id');
      t.equal(await s.keys.getByHash('no-such-hash'), undefined, 'unknown hash');

      t.strictSame(ids(await s.keys.list()), ['k1', 'k2', 'k3']);
      t.strictSame(ids(await s.keys.list({})), ['k1', 'k2', 'k3']);
      t.strictSame(ids(await s.keys.list({ workspaceId: 'ws-a' })), ['k1', 'k2']);
      t.strictSame(ids(await s.keys.list({ workspaceId: 'ws-b' })), ['k3']);
      t.strictSame(await s.keys.list({ workspaceId: 'ws-none' }), []);
    });

    t.test('keys: a revocation written by one instance is seen by another on its next read', async (t) => {
      const loc = await fresh('revoke');
      const cli = await loc.open();
      const server = await loc.open();
      const k = sampleKey({ id: 'k-live' });
      await cli.keys.put(k);
      t.equal((await server.keys.getByHash(k.hash))?.revokedAt, null, 'server sees the live key');

      const revokedAt = Date.UTC(2026, 0, 2);
      await cli.keys.put({ ...k, revokedAt });
      t.equal((await server.keys.getByHash(k.hash))?.revokedAt, revokedAt, 'by hash');
      t.equal((await server.keys.get(k.id))?.revokedAt, revokedAt, 'by id');
      t.equal((await server.keys.list())[0]?.revokedAt, revokedAt, 'in the listing');
    });

    t.test('keys: a changed hash stops resolving the old one', async (t) => {
      const loc = await fresh('rehash');
      const a = await loc.open();
      const b = await loc.open();
      const k = sampleKey({ id: 'k-re', hash: 'old-hash' });
      await a.keys.put(k);
      await a.keys.put({ ...k, hash: 'new-hash' });
      t.equal(await b.keys.getByHash('old-hash'), undefined);
      t.equal((await b.keys.getByHash('new-hash'))?.id, 'k-re');
    });

    t.test('tasks: put then get keeps every field', async (t) => {
      const s = await (await fresh('task-roundtrip')).open();
      const task = sampleTask({ id: 't-full' });
      await s.tasks.put(task);
      t.strictSame(await s.tasks.get('ws-a', 't-full'), task);
      t.equal(await s.tasks.get('ws-a', 't-unknown'), undefined);

      const later = { ...task, history: [...task.history, ...task.history], updatedAt: task.updatedAt + 1 };
      await s.tasks.put(later);
      t.strictSame(await s.tasks.get('ws-a', 't-full'), later, 'the last write wins whole');
    });

    t.test('tasks: ids are scoped by workspace', async (t) => {
      const s = await (await fresh('task-scope')).open();
      const a = sampleTask({ id: 'same' });
      const b = { ...sampleTask({ id: 'same' }), workspaceId: 'ws-b', agentId: 'other' };
      await s.tasks.put(a);
      await s.tasks.put(b);
      t.equal((await s.tasks.get('ws-a', 'same'))?.agentId, a.agentId);
      t.equal((await s.tasks.get('ws-b', 'same'))?.agentId, 'other', 'one workspace never overwrites the other');
      t.equal(await s.tasks.get('ws-c', 'same'), undefined, 'a third workspace finds nothing');
    });

    t.test('tasks: listByState follows state changes', async (t) => {
      const s = await (await fresh('by-state')).open();
      await s.tasks.put(sampleTask({ id: 't1', state: 'working' }));
      await s.tasks.put(sampleTask({ id: 't2', state: 'working' }));
      await s.tasks.put(sampleTask({ id: 't3', state: 'submitted' }));
      await s.tasks.put(sampleTask({ id: 't4', state: 'completed' }));
      await s.tasks.put(sampleTask({ id: 't2', state: 'working' }));
      t.strictSame(ids(await s.tasks.listByState(['working'])), ['t1', 't2'], 'a repeated put is listed once');

      await s.tasks.put(sampleTask({ id: 't1', state: 'completed' }));
      t.strictSame(ids(await s.tasks.listByState(['working'])), ['t2'], 't1 left the working list');
      const completed = await s.tasks.listByState(['completed']);
      t.strictSame(ids(completed), ['t1', 't4']);
      t.ok(
        completed.every((x) => x.status.state === 'completed'),
        'listed tasks carry their new state',
      );
      t.strictSame(ids(await s.tasks.listByState(['working', 'submitted'])), ['t2', 't3']);
      t.strictSame(await s.tasks.listByState(['failed']), []);
      t.strictSame(await s.tasks.listByState([]), []);
    });

    t.test('tasks: a workspace listing reads one workspace, never one whose id begins with it', async (t) => {
      const s = await (await fresh('by-workspace')).open();
      await s.tasks.put(sampleTask({ id: 't1', state: 'working' }));
      await s.tasks.put(sampleTask({ id: 't2', state: 'completed' }));
      await s.tasks.put({ ...sampleTask({ id: 't3' }), workspaceId: 'ws-a/b' });
      await s.tasks.put({ ...sampleTask({ id: 't4' }), workspaceId: 'ws-ab' });
      await s.tasks.put({ ...sampleTask({ id: 't5/x' }), workspaceId: 'ws' });
      t.strictSame(ids(await listedTasks(s, 'ws-a')), ['t1', 't2'], 'both states, none of ws-a/b or ws-ab');
      t.strictSame(ids(await listedTasks(s, 'ws-a/b')), ['t3']);
      t.strictSame(ids(await listedTasks(s, 'ws')), ['t5/x'], 'an id with a slash stays in its workspace');
      t.strictSame(await listedTasks(s, 'ws-none'), []);
      await s.tasks.put(sampleTask({ id: 't1', state: 'completed' }));
      t.strictSame(ids(await listedTasks(s, 'ws-a')), ['t1', 't2'], 'a state change lists it once');
    });

    t.test('tasks: a workspace listing never lists a neighbour workspace, and a swept task leaves the listing', async (t) => {
      const s = await (await fresh('by-workspace-sweep')).open();
      const T = Date.UTC(2026, 0, 1);
      const make = async (workspaceId: string, id: string, state: TaskState, updatedAt = T) =>
        t.equal(await s.tasks.create({ ...sampleTask({ id, state }), workspaceId, updatedAt, seq: 1 }), true, `${workspaceId}/${id}`);
      await make('A', 'a-done', 'completed');
      await make('A', 'a-working', 'working');
      await make('A', 'a-later', 'failed', T + 1_000);
      await make('A-other', 'o-done', 'completed');
      await make('A-other', 'o-working', 'working');
      await make('AB', 'ab-1', 'working');
      await make('B', 'A', 'working'); // key B/A
      await make('B', 'x/y', 'completed'); // an id with a slash: key B/x/y
      t.strictSame(ids(await listedTasks(s, 'A')), ['a-done', 'a-later', 'a-working'], 'none of A-other, AB or B');
      t.strictSame(ids(await listedTasks(s, 'A-other')), ['o-done', 'o-working']);
      t.strictSame(ids(await listedTasks(s, 'B')), ['A', 'x/y']);

      t.strictSame((await s.tasks.sweep({ endedBy: T, limit: 100 })).sort(), ['A-other/o-done', 'A/a-done', 'B/x/y']);
      t.strictSame(ids(await listedTasks(s, 'A')), ['a-later', 'a-working'], 'the swept task is gone from the listing');
      t.strictSame(ids(await listedTasks(s, 'A-other')), ['o-working']);
      t.strictSame(ids(await listedTasks(s, 'B')), ['A'], 'the swept id with a slash too');

      // the last of a workspace's tasks ends and is swept: the listing is empty, then a new task lists again
      t.equal(
        await s.tasks.put({ ...sampleTask({ id: 'a-working', state: 'canceled' }), workspaceId: 'A', updatedAt: T + 2_000, seq: 2 }, { expectSeq: 1 }),
        true,
      );
      t.equal((await s.tasks.sweep({ endedBy: T + 2_000, limit: 100 })).length, 2);
      t.strictSame(await listedTasks(s, 'A'), []);
      await make('A', 'a-new', 'submitted', T + 3_000);
      t.strictSame(ids(await listedTasks(s, 'A')), ['a-new']);
    });

    t.test('tasks: a workspace listing lists each task of a workspace of thousands exactly once, across its pages', async (t) => {
      const s = await (await fresh('scan-slices')).open();
      const n = 2_345; // past two pages of 1,000
      const mine = Array.from({ length: n }, (_, i) => `t${String(i).padStart(5, '0')}`);
      await Promise.all(mine.map((id) => s.tasks.create({ ...sampleTask({ id }), workspaceId: 'W', seq: 1 })));
      // neighbours on both sides of the range, and one whose id starts like the workspace's
      await s.tasks.create({ ...sampleTask({ id: 'n1' }), workspaceId: 'V', seq: 1 });
      await s.tasks.create({ ...sampleTask({ id: 'n2' }), workspaceId: 'W-x', seq: 1 });
      await s.tasks.create({ ...sampleTask({ id: 'n3' }), workspaceId: 'W/y', seq: 1 });
      const seen = ids(await listedTasks(s, 'W'));
      t.equal(seen.length, n, 'every task once');
      t.strictSame([...seen].sort(), mine, 'exactly the workspace own tasks');
      t.strictSame(ids(await listedTasks(s, 'W/y')), ['n3']);
    });

    t.test('pushJobs: dropTasks removes exactly the swept tasks jobs among many, neighbours by name kept', async (t) => {
      const s = await (await fresh('drop-tasks')).open();
      const job = (taskKey: string, config: string, seq: number) => ({
        ...samplePushJob({ queue: JSON.stringify([taskKey, config]), seq }),
        id: `j-${taskKey}-${config}-${seq}`,
        taskKey,
      });
      // 1,200 jobs: past several ZSCAN steps and drop scripts
      const keys = Array.from({ length: 300 }, (_, i) => `ws-a/t${i}`);
      await s.pushJobs.enqueue(keys.flatMap((k) => [job(k, 'c1', 1), job(k, 'c1', 2), job(k, 'c2', 1), job(k, 'c"2', 1)]));
      const odd = 'ws-a/q"\\x'; // characters JSON escapes
      await s.pushJobs.enqueue([job(odd, 'c', 1), job(`${odd}y`, 'c', 1)]);
      const drop = [...keys.filter((_, i) => i % 3 === 0), odd, 'ws-a/none'];
      t.equal(await s.pushJobs.dropTasks(drop), 100 * 4 + 1, 'every job of the dropped tasks');
      const left = await s.pushJobs.list();
      t.equal(left.length, 200 * 4 + 1);
      const dropped = new Set(drop);
      t.ok(
        left.every((j) => !dropped.has(j.taskKey)),
        'none of theirs left',
      );
      t.ok(
        left.some((j) => j.taskKey === 'ws-a/t10') && left.some((j) => j.taskKey === `${odd}y`),
        'a task whose key begins with a dropped one keeps its jobs (t10 beside t1, and the escaped one)',
      );
      t.equal(await s.pushJobs.dropTasks(drop), 0, 'again: nothing left to drop');
    });

    t.test('tasks: an index repair pass over tasks this code wrote adds nothing, ends, and is claimed once per period', async (t) => {
      const loc = await fresh('index-repair');
      const [s1, s2] = [await loc.open(), await loc.open()];
      for (let i = 0; i < 700; i++) {
        await s1.tasks.create({ ...sampleTask({ id: `t${i}`, state: i % 3 ? 'working' : 'completed' }), workspaceId: i % 2 ? 'A' : 'B', seq: 1 });
      }
      t.equal(await s1.tasks.claimIndexRepair(60_000), true, 'the first claim of a period runs the pass');
      // one process owns LMDB data; on a shared store the period is claimed by one instance
      t.equal(await s2.tasks.claimIndexRepair(60_000), engine.name === 'lmdb', 'a second claim in the period');
      let cursor = '';
      let steps = 0;
      let added = 0;
      do {
        const step = await s1.tasks.repairIndexStep(cursor);
        added += step.added;
        cursor = step.cursor;
        steps++;
      } while (cursor !== '' && steps < 1_000);
      t.equal(cursor, '', 'the pass ends');
      t.equal(added, 0, 'every task this code writes is indexed by its write');
      t.equal((await listedTasks(s2, 'A')).length, 350);
      t.equal((await listedTasks(s2, 'B')).length, 350);
    });

    t.test('tasks: a corrupt stored value is refused, not returned', async (t) => {
      const loc = await fresh('corrupt');
      const s = await loc.open();
      await loc.corruptTask('t-bad');
      await t.rejects(s.tasks.get('ws-a', 't-bad'), { name: 'StoreCorruptError', code: 'ERR_STORE_CORRUPT', record: 'task', id: 'ws-a/t-bad' });
    });

    t.test('item 3: create is insert-if-absent, atomic between instances', async (t) => {
      const loc = await fresh('create');
      const [a, b] = [await loc.open(), await loc.open()];
      const ev = (seq: number, text: string) => ({
        seq,
        kind: 'status' as const,
        status: {
          state: 'working' as const,
          timestamp: new Date(seq).toISOString(),
          message: { role: 'agent' as const, messageId: text, parts: [{ kind: 'text' as const, text }] },
        },
        final: false,
      });
      const mine = (n: number) => ({ ...sampleTask({ id: 'same', state: 'working' }), contextId: `ctx-${n}`, seq: 1 });
      const outcomes = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((n) => (n % 2 ? a : b).tasks.create(mine(n), { events: [ev(1, `from ${n}`)], retainEvents: 100 })),
      );
      t.equal(outcomes.filter(Boolean).length, 1, 'exactly one create wins');
      const winner = outcomes.indexOf(true);
      t.equal((await a.tasks.get('ws-a', 'same'))?.contextId, `ctx-${winner}`, "the stored task is the winner's");
      const events = await b.events.after('ws-a/same', 0);
      t.strictSame(
        events.map((e) => (e.kind === 'status' ? e.status.message?.messageId : '')),
        [`from ${winner}`],
        "only the winner's events were stored",
      );
      t.strictSame(ids(await a.tasks.listByState(['working'])), ['same'], 'indexed once');
      t.equal(await a.tasks.create(sampleTask({ id: 'other' })), true, 'a free id is created');
    });

    t.test('item 4: a terminal task never changes again; puts are compare-and-set on seq', async (t) => {
      const loc = await fresh('terminal');
      const [a, b] = [await loc.open(), await loc.open()];
      const working = { ...sampleTask({ id: 't-cas', state: 'working' }), seq: 4 };
      t.equal(await a.tasks.create(working), true);
      t.equal(await a.tasks.put({ ...working, seq: 5 }, { expectSeq: 3 }), false, 'a put that expects another seq is refused');
      t.equal(await a.tasks.put({ ...working, seq: 5 }, { expectSeq: 99 }), false);
      t.equal(await a.tasks.put({ ...sampleTask({ id: 't-absent' }), seq: 1 }, { expectSeq: 0 }), false, 'an expected task that is absent is not created');
      t.equal(await a.tasks.get('ws-a', 't-absent'), undefined);
      const failed = { ...sampleTask({ id: 't-cas', state: 'failed' }), seq: 5, updatedAt: working.updatedAt + 1 };
      t.equal(await b.tasks.put(failed, { expectSeq: 4 }), true, 'another instance fails it at the seq it read');
      const completed = { ...sampleTask({ id: 't-cas', state: 'completed' }), seq: 5, updatedAt: working.updatedAt + 2 };
      t.equal(
        await a.tasks.put(completed, { expectSeq: 4, events: [{ seq: 5, kind: 'status', status: { state: 'completed', timestamp: 'x' }, final: true }] }),
        false,
        'the owner finishing later is refused',
      );
      t.equal(await a.tasks.put({ ...completed, seq: 6 }, { expectSeq: 5 }), false, 'even at the right seq: terminal stays terminal');
      t.equal(await a.tasks.put({ ...working, seq: 7 }), false, 'an unconditional put back to working too');
      t.equal(await a.tasks.put(failed), false, 'and a rewrite of the same terminal record');
      // read through a third instance: LMDB's task cache is per instance (only one server process writes tasks)
      t.strictSame(await (await loc.open()).tasks.get('ws-a', 't-cas'), failed, 'unchanged');
      t.strictSame(ids(await a.tasks.listByState(['failed'])), ['t-cas']);
      t.strictSame(await a.tasks.listByState(['completed', 'working']), [], 'the index is unchanged');
      t.strictSame(await a.events.after('ws-a/t-cas', 0), [], 'a refused write appends none of its events');
      t.equal(await a.tasks.create(completed), false, 'create does not replace it either');
    });

    t.test('a task write carries the push jobs its change causes: stored with it, or not at all', async (t) => {
      const loc = await fresh('task-jobs');
      const s = await loc.open();
      const job = (id: string, seq: number) => ({ ...samplePushJob({ queue: `["ws-a/${id}","cfg-1"]`, seq, id: `msg_${id}_${seq}` }), taskKey: `ws-a/${id}` });
      const created = { ...sampleTask({ id: 't-jobs', state: 'working' }), seq: 1 };
      t.equal(await s.tasks.create(created, { pushJobs: [job('t-jobs', 1)] }), true);
      const done = { ...sampleTask({ id: 't-jobs', state: 'completed' }), seq: 2 };
      t.equal(await s.tasks.put(done, { expectSeq: 1, pushJobs: [job('t-jobs', 2)] }), true);
      t.strictSame(
        (await s.pushJobs.list()).map((j) => j.id),
        ['msg_t-jobs_1', 'msg_t-jobs_2'],
        "each write's jobs are waiting, in the queue's seq order",
      );
      t.equal(await s.tasks.put({ ...done, seq: 3 }, { pushJobs: [job('t-jobs', 3)] }), false, 'a write to a terminal task is refused');
      t.equal(await s.tasks.create({ ...created, seq: 9 }, { pushJobs: [job('t-jobs', 9)] }), false, 'so is a create over a stored task');
      t.equal(await s.tasks.put({ ...sampleTask({ id: 't-none' }), seq: 1 }, { expectSeq: 0, pushJobs: [job('t-none', 1)] }), false);
      t.strictSame(
        (await s.pushJobs.list()).map((j) => j.id),
        ['msg_t-jobs_1', 'msg_t-jobs_2'],
        'a refused write enqueues none of its jobs',
      );
      const claimed = await s.pushJobs.claim({ now: Date.UTC(2030, 0, 1), leaseMs: 1000, limit: 10 });
      t.strictSame(
        claimed.map((c) => c.job.id),
        ['msg_t-jobs_1'],
        'they are ordinary queued jobs: the head is handed out',
      );
      t.equal(await s.pushJobs.complete(claimed[0]!), true);
      t.strictSame(
        (await s.pushJobs.list()).map((j) => j.id),
        ['msg_t-jobs_2'],
      );
    });

    t.test('item 18: sweep deletes terminal tasks ended by the cutoff, with their index entries, events, push configs and jobs', async (t) => {
      const loc = await fresh('sweep');
      const s = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const put = async (id: string, state: TaskState, endedAt: number) => {
        const task = { ...sampleTask({ id, state }), updatedAt: endedAt, seq: 1 };
        t.equal(await s.tasks.create(task, { events: [{ seq: 1, kind: 'status', status: { state, timestamp: 'x' }, final: false }], retainEvents: 10 }), true);
        await s.pushConfigs.put(samplePushConfig({ taskId: `ws-a/${id}`, id: `cfg-${id}` }));
        await s.pushJobs.enqueue([{ ...samplePushJob({ queue: `["ws-a/${id}","cfg-${id}"]`, seq: 1 }), taskKey: `ws-a/${id}` }]);
      };
      await put('old-done', 'completed', T);
      await put('old-failed', 'failed', T + 10);
      await put('new-done', 'completed', T + 1_000);
      await put('old-waiting', 'input-required', T);
      await put('old-working', 'working', T);
      // a task that ends later: indexed by its terminal record's time
      const later = { ...sampleTask({ id: 'old-working', state: 'canceled' }), updatedAt: T + 5, seq: 2 };
      t.equal(await s.tasks.put(later, { expectSeq: 1 }), true);

      t.strictSame(await s.tasks.sweep({ endedBy: T - 1, limit: 100 }), [], 'nothing ended yet');
      const first = await s.tasks.sweep({ endedBy: T + 999, limit: 2 });
      t.strictSame(first, ['ws-a/old-done', 'ws-a/old-working'], 'oldest first, at most `limit`');
      const second = await s.tasks.sweep({ endedBy: T + 999, limit: 100 });
      t.strictSame(second, ['ws-a/old-failed']);
      t.equal(await s.pushJobs.dropTasks([...first, ...second]), 3, 'their waiting push jobs go too');
      for (const key of [...first, ...second]) {
        t.equal(await s.tasks.get('ws-a', key.slice(5)), undefined, `${key} is gone`);
        t.strictSame(await s.events.after(key, 0), []);
        t.strictSame(await s.pushConfigs.list(key), []);
        t.strictSame(await loc.residue(`${key.slice(5)}"`), [], `nothing raw names ${key}`);
        t.strictSame(await loc.residue(`${key}:`), []);
      }
      t.strictSame(ids(await s.tasks.listByState(ALL)), ['new-done', 'old-waiting'], 'a newer terminal task and a non-terminal one stay');
      t.strictSame((await s.pushJobs.list()).map((j) => j.taskKey).sort(), ['ws-a/new-done', 'ws-a/old-waiting']);
      t.strictSame(ids(await s.pushConfigs.list('ws-a/new-done')), ['cfg-new-done']);
      t.strictSame(await s.tasks.sweep({ endedBy: T + 10 ** 12, limit: 100 }), ['ws-a/new-done'], 'input-required is never swept');
    });

    t.test('push configs: put, get, list per task, delete', async (t) => {
      const s = await (await fresh('push')).open();
      const c1 = samplePushConfig({ taskId: 't1', id: 'c1' });
      const c2 = { ...samplePushConfig({ taskId: 't1', id: 'c2' }), token: undefined, authentication: undefined, disabled: true };
      // 't10' begins with 't1': its configs must not show up under 't1'
      const c3 = samplePushConfig({ taskId: 't10', id: 'c3' });
      for (const c of [c1, c2, c3]) await s.pushConfigs.put(c);

      t.strictSame(await s.pushConfigs.get('t1', 'c1'), c1);
      t.equal((await s.pushConfigs.get('t1', 'c2'))?.disabled, true);
      t.equal(await s.pushConfigs.get('t1', 'c3'), undefined, "another task's config is not found under this task");
      t.equal(await s.pushConfigs.get('t-unknown', 'c1'), undefined);
      t.strictSame(ids(await s.pushConfigs.list('t1')), ['c1', 'c2']);
      t.strictSame(ids(await s.pushConfigs.list('t10')), ['c3']);
      t.strictSame(await s.pushConfigs.list('t-unknown'), []);

      t.equal(await s.pushConfigs.delete('t1', 'nope'), false, 'unknown config');
      t.equal(await s.pushConfigs.delete('t-unknown', 'c1'), false, 'unknown task');
      t.equal(await s.pushConfigs.delete('t1', 'c1'), true);
      t.equal(await s.pushConfigs.delete('t1', 'c1'), false, 'already gone');
      t.equal(await s.pushConfigs.get('t1', 'c1'), undefined);
      t.strictSame(ids(await s.pushConfigs.list('t1')), ['c2']);
      t.strictSame(ids(await s.pushConfigs.list('t10')), ['c3'], 'untouched');
    });

    t.test('tasks: a write that read no push configs is refused, nothing written, when the task holds one (set through another store)', async (t) => {
      const loc = await fresh('task-no-configs');
      const [s1, s2] = [await loc.open(), await loc.open()];
      const task = sampleTask({ id: 't-cfg' });
      const key = taskKey(task.workspaceId, task.id);
      t.equal(await s1.tasks.create(task, { withoutPushConfigs: true }), true, 'no config: written');
      await s2.pushConfigs.put(samplePushConfig({ taskId: key, id: 'c1' }));
      const later = { ...task, updatedAt: task.updatedAt + 1, seq: 2 };
      await t.rejects(
        s1.tasks.put(later, { withoutPushConfigs: true, events: [{ seq: 2, kind: 'status', status: { state: 'working', timestamp: 'x' }, final: false }] }),
        { code: 'ERR_TASK_HAS_PUSH_CONFIGS' },
        'a config set through the other store',
      );
      t.strictSame(await s1.tasks.get(task.workspaceId, task.id), task, 'the record is as it was');
      t.strictSame(await s1.events.after(key, 0), [], 'no event written');
      t.equal(await s1.tasks.put(later), true, 'written once the writer read the configs');
      t.ok(await s2.pushConfigs.delete(key, 'c1'));
      t.equal(await s1.tasks.put({ ...later, updatedAt: later.updatedAt + 1 }, { withoutPushConfigs: true }), true, 'none again: written');
      t.equal(await s1.tasks.create(task, { withoutPushConfigs: true }), false, 'a create over a stored task is refused as before');
    });

    t.test('push configs: a bounded add counts and writes in one step, on two stores over the same data at once', async (t) => {
      const loc = await fresh('push-add');
      const [s1, s2] = [await loc.open(), await loc.open()];
      const max = 3;
      const adds = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? s1 : s2).pushConfigs.add(samplePushConfig({ taskId: 't1', id: `c${i}` }), { maxPerTask: max }),
      );
      const results = await Promise.all(adds);
      t.equal(results.filter((r) => r.stored).length, max, 'exactly the bound stored, whichever store added');
      t.ok(
        results.every((r) => r.stored || r.held === max),
        'every other add refused, naming the count held',
      );
      t.equal((await s1.pushConfigs.list('t1')).length, max, 'and no more kept');
      const kept = ids(await s2.pushConfigs.list('t1'));

      const replacing = { ...samplePushConfig({ taskId: 't1', id: kept[0]! }), url: 'https://example.com/replaced' };
      t.strictSame(await s2.pushConfigs.add(replacing, { maxPerTask: max }), { stored: true }, 'an id the task holds is replaced, not counted');
      t.equal((await s1.pushConfigs.get('t1', kept[0]!))?.url, 'https://example.com/replaced');
      t.strictSame(await s1.pushConfigs.add(samplePushConfig({ taskId: 't1', id: 'late' }), { maxPerTask: max }), { stored: false, held: max });
      t.equal(await s1.pushConfigs.get('t1', 'late'), undefined, 'a refused add writes nothing');
      t.strictSame(ids(await s1.pushConfigs.list('t1')), kept);
      t.strictSame(
        await s1.pushConfigs.add(samplePushConfig({ taskId: 't10', id: 'other' }), { maxPerTask: max }),
        { stored: true },
        "another task's room is its own",
      );
      await s1.pushConfigs.delete('t1', kept[1]!);
      t.strictSame(await s2.pushConfigs.add(samplePushConfig({ taskId: 't1', id: 'late' }), { maxPerTask: max }), { stored: true }, 'a delete makes room');
    });

    t.test('events: append, replay after a seq, bounded retention per task', async (t) => {
      const loc = await fresh('events');
      const s = await loc.open();
      const status = (seq: number, state: 'working' | 'completed') => ({
        seq,
        kind: 'status' as const,
        status: { state, timestamp: new Date(seq).toISOString() },
        final: state === 'completed',
      });
      await s.events.append('ws-a/t1', [status(1, 'working'), chunk(2), chunk(3)], 100);
      await s.events.append('ws-a/t10', [status(1, 'working')], 100);
      await s.events.append('ws-a/t1', [status(4, 'completed')], 100);
      t.strictSame(
        (await s.events.after('ws-a/t1', 0)).map((e) => e.seq),
        [1, 2, 3, 4],
      );
      t.strictSame(await s.events.after('ws-a/t1', 2), [chunk(3), status(4, 'completed')], 'replay starts right after the given seq');
      t.strictSame(await s.events.after('ws-a/t1', 4), []);
      t.strictSame(
        (await s.events.after('ws-a/t10', 0)).map((e) => e.seq),
        [1],
        'a task whose key shares a prefix keeps its own events',
      );

      await s.events.append(
        'ws-a/t2',
        [1, 2, 3, 4, 5, 6].map((n) => chunk(n)),
        3,
      );
      t.strictSame(
        (await s.events.after('ws-a/t2', 0)).map((e) => e.seq),
        [4, 5, 6],
        'only the last 3 are retained',
      );
      // an engine may keep one append's events together: the cut and a replay may fall inside such a group
      await s.events.append(
        'ws-a/t3',
        [1, 2, 3, 4].map((n) => chunk(n)),
        5,
      );
      await s.events.append(
        'ws-a/t3',
        [5, 6, 7].map((n) => chunk(n)),
        5,
      );
      t.strictSame(
        (await s.events.after('ws-a/t3', 0)).map((e) => e.seq),
        [3, 4, 5, 6, 7],
        'the cut may split an earlier append',
      );
      t.strictSame(
        (await s.events.after('ws-a/t3', 5)).map((e) => e.seq),
        [6, 7],
        'a replay may start inside an append',
      );
      await s.events.append('ws-a/t3', [chunk(8)], 5);
      t.strictSame(
        (await s.events.after('ws-a/t3', 0)).map((e) => e.seq),
        [4, 5, 6, 7, 8],
        'a later cut trims the rest of a split append',
      );
      const again = await loc.open();
      t.strictSame(
        (await again.events.after('ws-a/t1', 3)).map((e) => e.seq),
        [4],
        'events survive a reopen',
      );
    });

    t.test('events: a burst longer than the retention, then single events, keeps exactly the last ones', async (t) => {
      const s = await (await fresh('events-burst')).open();
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const seqsAfter = async (after: number) => (await s.events.after('ws-a/b1', after)).map((e) => e.seq);
      // one append of 200 events, kept 70: the append itself is cut, and what stays may span several stored values
      await s.events.append('ws-a/b1', range(1, 200).map(chunk), 70);
      t.strictSame(await seqsAfter(0), range(131, 200), 'the last 70 of the burst');
      t.strictSame(await seqsAfter(150), range(151, 200), 'a replay from inside the burst');
      // every later event moves the cut one step through the burst's values
      for (const seq of range(201, 260)) await s.events.append('ws-a/b1', [chunk(seq)], 70);
      t.strictSame(await seqsAfter(0), range(191, 260), 'still exactly the last 70');
      t.strictSame(await seqsAfter(195), range(196, 260), 'a replay across the burst and the single events');
      // a second burst that ends past the first one's values drops them whole
      await s.events.append('ws-a/b1', range(261, 400).map(chunk), 70);
      t.strictSame(await seqsAfter(0), range(331, 400), 'the last 70 of the second burst');
    });

    t.test('meta: get and put', async (t) => {
      const loc = await fresh('meta');
      const s = await loc.open();
      t.equal(await s.meta.get('webhook-secret:ws-a'), undefined);
      await s.meta.put('webhook-secret:ws-a', 'whsec_1');
      await s.meta.put('settings', { n: 1, list: [1, 'two', { three: 3 }], flag: false });
      t.equal(await s.meta.get('webhook-secret:ws-a'), 'whsec_1');
      t.strictSame(await s.meta.get('settings'), { n: 1, list: [1, 'two', { three: 3 }], flag: false });
      await s.meta.put('webhook-secret:ws-a', 'whsec_2');
      t.equal(await (await loc.open()).meta.get('webhook-secret:ws-a'), 'whsec_2', 'overwritten, seen by another instance');
    });

    t.test('meta: an entry put with an expiry is collected by a later expiring put past it; renewed or unexpiring ones stay', async (t) => {
      const loc = await fresh('meta-expiry');
      const s = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      await s.meta.put('beat:gone', 1, { now: T, expiresAt: T + 100 });
      await s.meta.put('beat:later', 2, { now: T, expiresAt: T + 300 });
      await s.meta.put('beat:renewed', 3, { now: T, expiresAt: T + 100 });
      await s.meta.put('beat:renewed', 4, { now: T + 50, expiresAt: T + 250 });
      await s.meta.put('secret', 'kept', { now: T, expiresAt: T + 100 });
      await s.meta.put('secret', 'kept for good');
      t.equal(await s.meta.get('beat:gone'), 1, 'an expired entry reads as stored until a later expiring put collects it');

      await s.meta.put('beat:other', 5, { now: T + 200, expiresAt: T + 500 });
      const other = await loc.open();
      t.equal(await other.meta.get('beat:gone'), undefined, 'collected once an expiring put ran past its expiry');
      t.strictSame(await loc.residue('beat:gone'), [], 'with its expiry entries');
      t.equal(await other.meta.get('beat:renewed'), 4, 'a renewed expiry counts, not the first one');
      t.equal(await other.meta.get('beat:later'), 2, 'not yet expired');
      t.equal(await other.meta.get('secret'), 'kept for good', 'a put without an expiry dropped the earlier one');
      t.equal(await other.meta.get('beat:other'), 5);

      await other.meta.put('beat:other', 6, { now: T + 600, expiresAt: T + 900 });
      for (const k of ['beat:later', 'beat:renewed']) {
        t.equal(await s.meta.get(k), undefined, `${k} collected at or past its expiry`);
        t.strictSame(await loc.residue(k), []);
      }
      t.equal(await s.meta.get('secret'), 'kept for good');
      t.equal(await s.meta.get('beat:other'), 6, 'the putting entry itself is stored after the sweep');
    });

    t.test('connections: insert, get, list by workspace then name, isolation, replace, delete', async (t) => {
      const loc = await fresh('connections');
      const s = await loc.open();
      const other = await loc.open();
      // 'ws-a2' begins with 'ws-a': its connections must not show up under 'ws-a'
      const recs = [
        sampleConnection({ workspace: 'ws-b', name: 'alpha' }),
        sampleConnection({ workspace: 'ws-a', name: 'beta' }),
        sampleConnection({ workspace: 'ws-a2', name: 'alpha' }),
        sampleConnection({ workspace: 'ws-a', name: 'alpha' }),
      ];
      for (const r of recs) t.equal(await s.connections.insert(r), true);
      const named = (xs: ReadonlyArray<{ workspace: string; name: string }>) => xs.map((x) => `${x.workspace}/${x.name}`);

      t.strictSame(await other.connections.get('ws-a', 'alpha'), recs[3], 'every field comes back, in another instance');
      t.equal((await s.connections.get('ws-b', 'alpha'))?.id, recs[0]!.id, 'the same name in another workspace is another connection');
      t.equal(await s.connections.get('ws-c', 'alpha'), undefined, 'a workspace without it finds nothing');
      t.equal(await s.connections.get('ws-a', 'nope'), undefined);
      t.strictSame(named(await s.connections.list()), ['ws-a/alpha', 'ws-a/beta', 'ws-a2/alpha', 'ws-b/alpha'], 'ordered by workspace, then name');
      t.strictSame(named(await s.connections.list({})), ['ws-a/alpha', 'ws-a/beta', 'ws-a2/alpha', 'ws-b/alpha']);
      t.strictSame(named(await s.connections.list({ workspace: 'ws-a' })), ['ws-a/alpha', 'ws-a/beta']);
      t.strictSame(named(await s.connections.list({ workspace: 'ws-a2' })), ['ws-a2/alpha']);
      t.strictSame(await s.connections.list({ workspace: 'ws-none' }), []);

      const changed = {
        ...recs[3]!,
        url: 'https://moved.example.test/',
        sealed: 'AQ-resealed',
        credentialKind: 'oauth' as const,
        updatedAt: recs[3]!.updatedAt + 5,
      };
      const stored = await s.connections.getVersioned('ws-a', 'alpha');
      t.equal(await s.connections.putIfVersion(changed, stored!.version), true);
      t.strictSame(await other.connections.get('ws-a', 'alpha'), changed, 'a version-checked write replaces the record whole');
      t.equal((await s.connections.list({ workspace: 'ws-a' })).length, 2, 'and is listed once');

      t.equal(await s.connections.delete('ws-a', 'nope'), false, 'unknown name');
      t.equal(await s.connections.delete('ws-c', 'alpha'), false, 'unknown workspace');
      t.equal(await other.connections.delete('ws-a', 'alpha'), true);
      t.equal(await s.connections.delete('ws-a', 'alpha'), false, 'already gone');
      t.equal(await s.connections.get('ws-a', 'alpha'), undefined);
      t.strictSame(named(await s.connections.list()), ['ws-a/beta', 'ws-a2/alpha', 'ws-b/alpha'], "the other workspaces' alpha stay");
      t.strictSame(await loc.residue('AQ-resealed'), [], 'nothing of the removed record is left');
    });

    t.test('relays: insert, get, list by workspace then name, agents kept, delete', async (t) => {
      const loc = await fresh('relays');
      const s = await loc.open();
      const other = await loc.open();
      const rec = (workspace: string, name: string) => ({
        id: `relay_${workspace}_${name}`,
        workspace,
        name,
        keyId: `key_${workspace}_${name}`,
        agents: {} as Record<string, { trust: 'read_only' | 'execute' | 'autonomous' | 'admin'; keys: string[] }>,
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_001,
      });
      const recs = [rec('ws-b', 'alpha'), rec('ws-a', 'beta'), rec('ws-a2', 'alpha'), rec('ws-a', 'alpha')];
      for (const r of recs) t.equal(await s.relays.insert(r), 'stored');
      const named = (xs: ReadonlyArray<{ workspace: string; name: string }>) => xs.map((x) => `${x.workspace}/${x.name}`);
      t.strictSame(await other.relays.get('ws-a', 'alpha'), recs[3], 'every field comes back, in another instance');
      t.equal(await s.relays.get('ws-c', 'alpha'), undefined);
      t.strictSame(named(await s.relays.list()), ['ws-a/alpha', 'ws-a/beta', 'ws-a2/alpha', 'ws-b/alpha'], 'ordered by workspace, then name');
      t.strictSame(named(await s.relays.list({ workspace: 'ws-a' })), ['ws-a/alpha', 'ws-a/beta'], "'ws-a2' is not under 'ws-a'");
      t.strictSame(await other.relays.byKey('key_ws-a_alpha'), recs[3], 'the relay a key opens, of any workspace, by its key');
      t.equal(await s.relays.byKey('key_nobody'), undefined);
      t.equal(await other.relays.insert({ ...rec('ws-c', 'gamma'), keyId: 'key_ws-b_alpha' }), 'key-taken', 'a key opens one relay');
      t.equal(await other.relays.insert({ ...rec('ws-a', 'beta'), keyId: 'key_free' }), 'name-taken');
      const card = { name: 'local-echo', description: 'echo ünï', skills: [], streaming: true };
      const changed = { ...recs[3]!, agents: { 'local-echo': { trust: 'admin' as const, keys: ['key_1'], card } }, updatedAt: 1_700_000_000_009 };
      t.equal(await s.relays.putIfVersion(changed, (await s.relays.getVersioned('ws-a', 'alpha'))!.version), true);
      t.strictSame(await other.relays.get('ws-a', 'alpha'), changed, 'agents, trust, permissions and card are kept');
      t.equal(await s.relays.delete('ws-a', 'nope'), false);
      t.equal(await other.relays.delete('ws-a', 'alpha'), true);
      t.equal(await s.relays.delete('ws-a', 'alpha'), false, 'already gone');
      t.equal(await s.relays.byKey('key_ws-a_alpha'), undefined, "a removed relay's key opens nothing");
      t.equal(await s.relays.insert({ ...rec('ws-c', 'gamma'), keyId: 'key_ws-a_alpha' }), 'stored', 'and is free for another relay');
      t.equal(await s.relays.delete('ws-c', 'gamma'), true);
      t.strictSame(named(await s.relays.list()), ['ws-a/beta', 'ws-a2/alpha', 'ws-b/alpha']);
      t.strictSame(await loc.residue('local-echo'), [], 'nothing of the removed record is left');
    });

    t.test('connections: status put and get, removed with the record, never kept for an absent one', async (t) => {
      const loc = await fresh('connection-status');
      const s = await loc.open();
      const server = await loc.open();
      await s.connections.insert(sampleConnection({ name: 'watched' }));
      await s.connections.insert(sampleConnection({ workspace: 'ws-b', name: 'watched' }));
      t.equal(await s.connections.getStatus('ws-a', 'watched'), undefined, 'no status until an actor reports one');

      const backingOff = sampleConnectionStatus();
      await server.connections.putStatus('ws-a', 'watched', backingOff);
      t.strictSame(await s.connections.getStatus('ws-a', 'watched'), backingOff, 'every field, read by another instance (the CLI)');
      const ready = { state: 'ready' as const, failures: 0, updatedAt: backingOff.updatedAt + 1 };
      await server.connections.putStatus('ws-a', 'watched', ready);
      t.strictSame(await s.connections.getStatus('ws-a', 'watched'), ready, 'replaced whole: no field of the old status survives');
      t.equal(await s.connections.getStatus('ws-b', 'watched'), undefined, "another workspace's connection of that name has its own");

      await server.connections.putStatus('ws-a', 'never-added', sampleConnectionStatus());
      t.equal(await s.connections.getStatus('ws-a', 'never-added'), undefined, 'a status for no connection is not kept');
      t.strictSame(await loc.residue('never-added'), []);

      t.equal(await s.connections.delete('ws-a', 'watched'), true);
      t.equal(await s.connections.getStatus('ws-a', 'watched'), undefined, 'the status went with the record');
      await server.connections.putStatus('ws-a', 'watched', sampleConnectionStatus({ state: 'circuit-open', failures: 5 }));
      await s.connections.insert(sampleConnection({ name: 'watched' }));
      t.equal(await s.connections.getStatus('ws-a', 'watched'), undefined, 'a status written after the remove did not wait for a new connection of the name');
      t.strictSame(await loc.residue('circuit-open'), []);
    });

    t.test('results: put, get, list per workspace and connection, oldest first', async (t) => {
      const loc = await fresh('results');
      const s = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const r1 = sampleResult({ id: 'r1', createdAt: T + 20, expiresAt: T + 99 });
      const r2 = sampleResult({ id: 'r2', connection: 'remote-2', createdAt: T + 10, expiresAt: T + 99, raw: false });
      const r3 = sampleResult({ id: 'r3', createdAt: T + 30, expiresAt: T + 99 });
      const b1 = sampleResult({ id: 'r1', workspace: 'ws-b', createdAt: T, expiresAt: T + 99 });
      const a2 = sampleResult({ id: 'r9', workspace: 'ws-a2', createdAt: T, expiresAt: T + 99 });
      for (const r of [r3, r1, b1, r2, a2]) await s.results.put(r);

      t.strictSame(await (await loc.open()).results.get('ws-a', 'r1'), r1, 'every field, the raw task too, in another instance');
      t.equal((await s.results.get('ws-a', 'r2'))?.raw, undefined, 'a summary-only result has no raw task');
      t.equal((await s.results.get('ws-b', 'r1'))?.createdAt, T, 'the same id in another workspace is another result');
      t.equal(await s.results.get('ws-c', 'r1'), undefined);
      t.strictSame(ids(await s.results.list({ workspace: 'ws-a' })), ['r1', 'r2', 'r3']);
      t.strictSame(
        (await s.results.list({ workspace: 'ws-a' })).map((r) => r.id),
        ['r2', 'r1', 'r3'],
        'oldest first',
      );
      t.strictSame(
        (await s.results.list({ workspace: 'ws-a', connection: 'remote-1' })).map((r) => r.id),
        ['r1', 'r3'],
        "one connection's",
      );
      t.strictSame(await s.results.list({ workspace: 'ws-a', connection: 'remote-none' }), []);
      t.strictSame(
        (await s.results.list({ workspace: 'ws-b' })).map((r) => r.id),
        ['r1'],
      );
      t.strictSame(await s.results.list({ workspace: 'ws-none' }), []);

      const replaced = { ...r1, summary: 'replaced', state: 'failed' };
      await s.results.put(replaced);
      t.strictSame(await s.results.get('ws-a', 'r1'), replaced, 'a put with the same id replaces it');
      t.equal((await s.results.list({ workspace: 'ws-a' })).length, 3);
    });

    t.test('results: sweep deletes exactly the expired ones, up to limit, and leaves no residue', async (t) => {
      const loc = await fresh('result-sweep');
      const s = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const expired = [
        sampleResult({ id: 'gone1', expiresAt: T - 10 }),
        sampleResult({ id: 'gone2', workspace: 'ws-b', connection: 'remote-2', expiresAt: T - 5 }),
        sampleResult({ id: 'gone3', expiresAt: T }),
      ];
      const kept = [sampleResult({ id: 'kept1', expiresAt: T + 1 }), sampleResult({ id: 'kept2', workspace: 'ws-b', expiresAt: T + 3_600_000 })];
      for (const r of [...kept, ...expired]) await s.results.put(r);
      // replaced results are swept by their new expiry, not their old one
      await s.results.put(sampleResult({ id: 'moved-later', expiresAt: T - 1 }));
      await s.results.put(sampleResult({ id: 'moved-later', expiresAt: T + 50 }));
      await s.results.put(sampleResult({ id: 'moved-sooner', expiresAt: T + 50 }));
      await s.results.put(sampleResult({ id: 'moved-sooner', expiresAt: T - 1 }));

      t.equal(await s.results.sweep({ now: T - 11, limit: 100 }), 0, 'nothing expired yet');
      t.equal(await s.results.sweep({ now: T, limit: 0 }), 0, 'limit 0 deletes nothing');
      t.equal(await s.results.sweep({ now: T, limit: 2 }), 2, 'at most `limit`');
      t.equal(await s.results.sweep({ now: T, limit: 100 }), 2, 'then the rest of those due, expiresAt <= now included');
      t.equal(await s.results.sweep({ now: T, limit: 100 }), 0, 'nothing left to sweep');

      for (const r of [...expired, { id: 'moved-sooner', workspace: 'ws-a' }]) {
        t.equal(await s.results.get(r.workspace, r.id), undefined, `${r.id} is gone`);
        t.strictSame(await loc.residue(r.id), [], `nothing raw names ${r.id}`);
      }
      t.strictSame(ids(await s.results.list({ workspace: 'ws-a' })), ['kept1', 'moved-later']);
      t.strictSame(ids(await s.results.list({ workspace: 'ws-b' })), ['kept2']);
      t.equal(await s.results.sweep({ now: T + 50, limit: 100 }), 2, 'later, the next ones');
      t.strictSame(ids(await s.results.list({ workspace: 'ws-a' })), []);
      t.strictSame(ids(await s.results.list({ workspace: 'ws-b' })), ['kept2']);
    });

    t.test('push jobs: a claim with a per-workspace cap passes over a full workspace, in order, and takes it later', async (t) => {
      const s = await (await fresh('push-fair')).open();
      const T = Date.UTC(2026, 0, 1);
      const job = (ws: string, task: string, seq: number, dueAt: number): PushJob => {
        const key = taskKey(ws, task);
        return { ...samplePushJob({ queue: queueOf(key, 'cfg'), seq, dueAt }), id: `msg_${ws}_${task}_${seq}`, taskKey: key, workspaceId: ws };
      };
      // workspace A (with a quote in its id) has 30 queues due before B's one: more than a first page of `limit`
      const a = Array.from({ length: 30 }, (_, q) => [job('A"1', `t${q}`, 1, T + q), job('A"1', `t${q}`, 2, T + q)]).flat();
      await s.pushJobs.enqueue([...a, job('B', 'b', 1, T + 100)]);
      const lease = { leaseMs: 60_000 };
      const names = (cs: ClaimedPushJob[]) => cs.map((c) => c.job.id).sort();
      const first = await s.pushJobs.claim({ now: T + 200, ...lease, limit: 5, perWorkspace: { max: 3, held: new Map([['A"1', 1]]) } });
      t.strictSame(names(first), ['msg_A"1_t0_1', 'msg_A"1_t1_1', 'msg_B_b_1'], 'A up to its share (1 held + 2), then B: past the rest of A');
      const second = await s.pushJobs.claim({ now: T + 200, ...lease, limit: 5, perWorkspace: { max: 3, held: new Map([['A"1', 3]]) } });
      t.strictSame(second, [], 'A full and nothing else due: nothing');
      const full = { max: 3, held: new Map([['A"1', 3]]) };
      t.equal(await s.pushJobs.nextDueAt(), T + 2, "without passOver: A's next head, due already");
      t.equal(await s.pushJobs.nextDueAt({ passOver: full }), T + 200 + 60_000, "A's heads left out: when B's lease lapses");
      // two of A's attempts end (the ones this claim took; a shared store counts its leases until then)
      for (const c of first.filter((c) => c.job.workspaceId === 'A"1')) t.ok(await s.pushJobs.complete(c));
      const third = await s.pushJobs.claim({ now: T + 200, ...lease, limit: 2, perWorkspace: { max: 3, held: new Map([['A"1', 1]]) } });
      t.strictSame(
        third.map((c) => c.job.id),
        ['msg_A"1_t0_2', 'msg_A"1_t1_2'],
        'A up to its share again, oldest first: the next jobs of the queues whose heads were delivered (due at T, T + 1)',
      );
      const rest = await s.pushJobs.claim({ now: T + 200, ...lease, limit: 100 });
      t.equal(rest.length, 28, 'without a cap every other due head');
      t.strictSame(
        rest.map((c) => c.job.id),
        Array.from({ length: 28 }, (_, i) => `msg_A"1_t${i + 2}_1`),
        'heads only, oldest first',
      );
    });

    t.test('push jobs: a claim hands heads out oldest first, then by queue name, whatever the names', async (t) => {
      const s = await (await fresh('push-order')).open();
      const T = Date.UTC(2026, 0, 1);
      const job = (ws: string, dueAt: number): PushJob => {
        const key = taskKey(ws, 't');
        return { ...samplePushJob({ queue: queueOf(key, 'cfg'), seq: 1, dueAt }), id: `msg_${ws}`, taskKey: key, workspaceId: ws };
      };
      // names in the opposite order of due times; two due at the same time (name order, in UTF-8 bytes: U+FF5E sorts
      // before U+1F600, though its UTF-16 unit does not)
      await s.pushJobs.enqueue([job('a', T + 30), job('b', T + 20), job('c', T + 10), job('\u{1F600}', T), job('\uFF5E', T), job('d', T + 500)]);
      const lease = { leaseMs: 60_000 };
      const ids = (cs: ClaimedPushJob[]) => cs.map((c) => c.job.id);
      t.strictSame(ids(await s.pushJobs.claim({ now: T + 100, ...lease, limit: 1 })), ['msg_\uFF5E'], 'the oldest (a tie goes by name bytes)');
      t.strictSame(
        ids(await s.pushJobs.claim({ now: T + 100, ...lease, limit: 10 })),
        ['msg_\u{1F600}', 'msg_c', 'msg_b', 'msg_a'],
        'then the others, oldest first; d is not due',
      );
    });

    t.test("push jobs: listWorkspace gives one workspace's soonest due jobs, bounded, with its count", async (t) => {
      const s = await (await fresh('push-by-workspace')).open();
      const T = Date.UTC(2026, 0, 1);
      const job = (ws: string, task: string, seq: number, dueAt: number): PushJob => {
        const key = taskKey(ws, task);
        return { ...samplePushJob({ queue: queueOf(key, 'cfg'), seq, dueAt }), id: `msg_${ws}_${task}_${seq}`, taskKey: key, workspaceId: ws };
      };
      // 600 queues of 4: past two LMDB slices (1,000 keys) and many ZSCAN steps; followers are due in seq order, and
      // every tenth queue's head was retried to later than its followers
      const mine: PushJob[] = [];
      for (let q = 0; q < 600; q++) {
        const at = T + ((q * 7_919) % 600) * 10;
        for (let seq = 1; seq <= 4; seq++) mine.push(job('W', `t${q}`, seq, seq === 1 && q % 10 === 0 ? at + 1_000_000 : at + seq));
      }
      // other workspaces' jobs due sooner, one whose id starts like W's, and one with glob characters in its id
      const others = [...['V', 'W-x', 'W[1]'].flatMap((ws) => [1, 2, 3].map((seq) => job(ws, 'x', seq, T - 1_000 + seq))), job('W[1]', 'y', 1, T - 5_000)];
      const all = [...mine, ...others];
      for (let i = 0; i < all.length; i += 200) await s.pushJobs.enqueue(all.slice(i, i + 200));

      const loop = countLoopTurns();
      const got = await s.pushJobs.listWorkspace({ workspaceId: 'W', limit: 100 });
      loop.stop();
      const turns = loop.turns();
      const soonest = [...mine].sort((a, b) => (dueBefore(a, b) ? -1 : dueBefore(b, a) ? 1 : 0)).slice(0, 100);
      t.equal(got.jobs.length, 100, 'no more than the bound');
      t.strictSame(got.jobs, soonest, "the workspace's 100 soonest due, soonest first, whole records");
      t.equal(got.total, 2_400, 'and how many wait in all');
      t.ok(turns >= 2, `the read gave the event loop back between slices (${turns} turns)`);

      const bracket = await s.pushJobs.listWorkspace({ workspaceId: 'W[1]', limit: 2 });
      t.strictSame(
        bracket.jobs.map((j) => j.id),
        ['msg_W[1]_y_1', 'msg_W[1]_x_1'],
        'a workspace id with glob characters finds its own jobs',
      );
      t.equal(bracket.total, 4);
      t.strictSame(await s.pushJobs.listWorkspace({ workspaceId: 'W-', limit: 100 }), { jobs: [], total: 0 }, 'a prefix of an id is not that workspace');
    });

    t.test('push jobs: queues hand out their heads in seq order, one claimer at a time', async (t) => {
      const loc = await fresh('push-jobs');
      const a = await loc.open();
      const b = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const lease = { leaseMs: 30_000, limit: 10 };
      const q1 = [1, 2, 3].map((seq) => samplePushJob({ queue: 'q1', seq, dueAt: T }));
      const q2 = samplePushJob({ queue: 'q2', seq: 7, dueAt: T + 5_000 });
      // enqueued out of order: the queue still goes by seq
      await a.pushJobs.enqueue([q1[2]!, q1[0]!]);
      await a.pushJobs.enqueue([q1[1]!, q2]);
      await a.pushJobs.enqueue([]);
      t.strictSame(
        (await b.pushJobs.list()).filter((j) => j.queue === 'q1'),
        q1,
        'listed in seq order, whole records',
      );
      t.equal(await b.pushJobs.nextDueAt(), T);

      const first = await a.pushJobs.claim({ now: T, ...lease });
      t.strictSame(
        first.map((c) => c.job),
        [q1[0]],
        'only the head of a due queue; q2 is not due yet',
      );
      t.type(first[0]!.lease, 'string');
      t.strictSame(await b.pushJobs.claim({ now: T + 1_000, ...lease }), [], "a leased head is nobody else's, and job 2 waits behind it");
      t.equal(await b.pushJobs.nextDueAt(), T + 5_000, 'q2 becomes due first; q1 when its lease lapses');

      const second = await b.pushJobs.claim({ now: T + 5_000, ...lease });
      t.strictSame(
        second.map((c) => c.job.id),
        [q2.id],
        'another instance takes the other queue',
      );
      t.equal(await a.pushJobs.complete(second[0]!), true);
      t.strictSame(
        (await a.pushJobs.list()).map((j) => j.id),
        q1.map((j) => j.id),
        'q2 is gone',
      );

      // a failed attempt: the head stays, rescheduled, and nothing behind it moves
      t.equal(await a.pushJobs.retry(first[0]!, { attempts: 1, dueAt: T + 60_000, lastError: 'HTTP 500' }), true);
      t.equal(await a.pushJobs.retry(first[0]!, { attempts: 9, dueAt: T }), false, 'the lease ended with the retry');
      t.equal(await b.pushJobs.nextDueAt(), T + 60_000);
      t.strictSame(await b.pushJobs.claim({ now: T + 59_999, ...lease }), [], 'not before its due time');
      const again = await b.pushJobs.claim({ now: T + 60_000, ...lease });
      t.strictSame(
        again.map((c) => c.job),
        [{ ...q1[0]!, attempts: 1, dueAt: T + 60_000, lastError: 'HTTP 500' }],
        'the same job, same id, with its attempt count',
      );
      t.not(again[0]!.lease, first[0]!.lease, 'a new lease');

      // the lease lapses (a crashed instance): another claimer takes the job over, the old lease is dead
      const taken = await a.pushJobs.claim({ now: T + 60_000 + 30_000, ...lease });
      t.strictSame(
        taken.map((c) => c.job.id),
        [q1[0]!.id],
        'claimable again once the lease lapsed',
      );
      t.equal(await b.pushJobs.complete(again[0]!), false, 'the lapsed lease cannot complete it');
      t.equal(await b.pushJobs.retry(again[0]!, { attempts: 5, dueAt: T }), false, 'nor reschedule it');
      t.equal(await a.pushJobs.complete(taken[0]!), true);
      t.equal(await a.pushJobs.complete(taken[0]!), false, 'completing twice changes nothing');

      const now = T + 100_000;
      const next = await b.pushJobs.claim({ now, ...lease });
      t.strictSame(
        next.map((c) => c.job.id),
        [q1[1]!.id],
        'job 2 only after job 1 was completed',
      );
      t.equal(await b.pushJobs.complete(next[0]!), true);
      const last = await a.pushJobs.claim({ now, ...lease });
      t.strictSame(
        last.map((c) => c.job.id),
        [q1[2]!.id],
      );
      t.equal(await a.pushJobs.complete(last[0]!), true);
      t.strictSame(await a.pushJobs.list(), [], 'all delivered');
      t.equal(await a.pushJobs.nextDueAt(), undefined);
      t.strictSame(await a.pushJobs.claim({ now, ...lease }), []);
    });

    t.test('push jobs: claim limit, concurrent claimers, reopen', async (t) => {
      const loc = await fresh('push-jobs-many');
      const a = await loc.open();
      const b = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const queues = Array.from({ length: 12 }, (_, i) => `ws-a/t${i}#c`);
      await a.pushJobs.enqueue(queues.flatMap((queue) => [1, 2].map((seq) => samplePushJob({ queue, seq, dueAt: T }))));
      t.equal((await a.pushJobs.claim({ now: T, leaseMs: 1_000, limit: 0 })).length, 0, 'limit 0 claims nothing');
      const small = await a.pushJobs.claim({ now: T, leaseMs: 1_000, limit: 3 });
      t.equal(small.length, 3, 'at most `limit` heads');
      const [x, y] = await Promise.all([a.pushJobs.claim({ now: T, leaseMs: 1_000, limit: 100 }), b.pushJobs.claim({ now: T, leaseMs: 1_000, limit: 100 })]);
      const all = [...small, ...x, ...y].map((c) => c.job);
      t.equal(all.length, 12, 'every queue head claimed exactly once between the claimers');
      t.strictSame(all.map((j) => j.queue).sort(), [...queues].sort(), 'one per queue');
      t.ok(
        all.every((j) => j.seq === 1),
        'only heads',
      );
      for (const c of [...small, ...x, ...y]) t.equal(await a.pushJobs.retry(c, { attempts: 1, dueAt: T + 10 }), true);

      await a.close();
      const reopened = await loc.open();
      const jobs = await reopened.pushJobs.list();
      t.equal(jobs.length, 24, 'every job survives a reopen');
      t.ok(
        jobs.filter((j) => j.seq === 1).every((j) => j.attempts === 1 && j.dueAt === T + 10),
        'with its retry state',
      );
      t.equal(await reopened.pushJobs.nextDueAt(), T + 10);
    });

    t.test('push jobs: a restarted instance frees the leases of its own earlier run, and only those', async (t) => {
      const loc = await fresh('push-jobs-earlier');
      const s = await loc.open();
      const T = Date.UTC(2026, 0, 1);
      const holders = {
        dead: { instance: 'gw-1', boot: 'run-1' },
        now: { instance: 'gw-1', boot: 'run-2' },
        // a longer id that starts with the first one's: never taken for it
        other: { instance: 'gw-10', boot: 'run-1' },
      };
      await s.pushJobs.enqueue(['q-dead', 'q-now', 'q-other', 'q-anon'].flatMap((queue) => [1, 2].map((seq) => samplePushJob({ queue, seq, dueAt: T }))));
      const lease = { now: T, leaseMs: 60_000, limit: 1 };
      const claimed = {
        dead: await s.pushJobs.claim({ ...lease, holder: holders.dead }),
        now: await s.pushJobs.claim({ ...lease, holder: holders.now }),
        other: await s.pushJobs.claim({ ...lease, holder: holders.other }),
        anon: await s.pushJobs.claim(lease),
      };
      t.strictSame(
        Object.values(claimed).map((c) => c.length),
        [1, 1, 1, 1],
        'four heads leased',
      );
      t.strictSame(await s.pushJobs.claim({ ...lease, now: T + 1, limit: 10 }), [], 'nothing claimable while the leases run');

      t.equal(await s.pushJobs.releaseEarlierLeases(holders.now), 1, "one lease was the instance's earlier run's");
      const again = await s.pushJobs.claim({ ...lease, now: T + 1, limit: 10, holder: holders.now });
      t.strictSame(
        again.map((c) => c.job.id),
        [claimed.dead[0]!.job.id],
        "the dead run's head is claimable at once, still the head of its queue",
      );
      t.equal(await s.pushJobs.complete(claimed.dead[0]!), false, "the dead run's lease no longer finishes it");
      t.equal(await s.pushJobs.complete(again[0]!), true, 'the new claim does');
      t.equal(await s.pushJobs.complete(claimed.now[0]!), true, "this run's own lease is kept");
      t.equal(await s.pushJobs.complete(claimed.other[0]!), true, "another instance's lease is kept");
      t.equal(await s.pushJobs.complete(claimed.anon[0]!), true, 'a lease without a holder is kept');
      t.equal(await s.pushJobs.releaseEarlierLeases(holders.now), 0, 'idempotent');
    });

    t.test('reopen after close keeps the data', async (t) => {
      const loc = await fresh('reopen');
      const first = await loc.open();
      const key = sampleKey({ id: 'k-keep' });
      const task = sampleTask({ id: 't-keep', state: 'input-required' });
      const cfg = samplePushConfig({ taskId: 't-keep', id: 'c-keep' });
      await first.keys.put(key);
      await first.tasks.put(task);
      await first.pushConfigs.put(cfg);
      await first.meta.put('m', { v: 1 });
      await first.close();

      const again = await loc.open();
      t.strictSame(await again.keys.getByHash(key.hash), key);
      t.strictSame(await again.tasks.get(task.workspaceId, task.id), task);
      t.strictSame(ids(await again.tasks.listByState(['input-required'])), ['t-keep']);
      t.strictSame(await again.pushConfigs.get('t-keep', 'c-keep'), cfg);
      t.strictSame(await again.meta.get('m'), { v: 1 });
    });

    t.test('close is idempotent', async (t) => {
      const s = await (await fresh('close')).open();
      await t.resolves(Promise.all([s.close(), s.close()]), 'concurrent closes');
      await t.resolves(s.close(), 'a later close');
    });
  });
}

storeContract(lmdbEngine);
storeContract(redisEngine);

// What follows is LMDB only: its "other instance" can be another process on the same files.
const LMDB_MODULE = pathToFileURL(fileURLToPath(new URL('../../src/runtime/store/lmdb/index.ts', import.meta.url))).href;
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD_WRITES_KEYS = `
const { openLmdbStore } = await import(process.env.A2A_STORE_MODULE);
const store = await openLmdbStore({ path: process.env.A2A_STORE_PATH });
for (const rec of JSON.parse(process.env.A2A_KEYS)) await store.keys.put(rec);
await store.close();
`;

function childArgs(opts: { path: string; keys: unknown[] }) {
  return {
    args: ['--import', 'tsx', '--input-type=module', '-e', CHILD_WRITES_KEYS],
    options: {
      cwd: REPO_ROOT,
      env: { ...process.env, A2A_STORE_MODULE: LMDB_MODULE, A2A_STORE_PATH: opts.path, A2A_KEYS: JSON.stringify(opts.keys) },
    },
  };
}

t.test('lmdb: keys written by another process', async (t) => {
  const path = await mkdtemp(join(tmpdir(), 'a2a-store-proc-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));

  t.test('a key written by a child process that has exited is read here', async (t) => {
    const k = sampleKey({ id: 'k-child' });
    const { args, options } = childArgs({ path, keys: [k] });
    await promisify(execFile)(process.execPath, args, options);
    const s = await openLmdbStore({ path });
    t.teardown(() => s.close());
    t.strictSame(await s.keys.getByHash(k.hash), k);
  });

  t.test('a revocation by another process is seen on the very next read, same event-loop turn', async (t) => {
    const server = await openLmdbStore({ path });
    t.teardown(() => server.close());
    const k = sampleKey({ id: 'k-served' });
    await server.keys.put(k);
    t.equal((await server.keys.getByHash(k.hash))?.revokedAt, null);

    // spawnSync blocks without yielding to the event loop, so no timer can refresh the server's
    // read snapshot behind our back: only the store's own per-read refresh can make this pass.
    const revokedAt = Date.UTC(2026, 0, 3);
    const { args, options } = childArgs({ path, keys: [{ ...k, revokedAt }, sampleKey({ id: 'k-new' })] });
    const r = spawnSync(process.execPath, args, { ...options, encoding: 'utf8' });
    t.equal(r.status, 0, r.stderr);

    t.equal((await server.keys.getByHash(k.hash))?.revokedAt, revokedAt, 'revoked by hash');
    t.equal((await server.keys.get('k-new'))?.id, 'k-new', 'new key by id');
  });
});
