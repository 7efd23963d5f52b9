// The shared store engine: Redis via node-redis, for several gateway instances sharing tasks, keys and configs.
//
// Values are msgpack (msgpackr, plain maps rather than msgpackr records, so any msgpack reader can
// inspect them) stored as Buffers; key names come from redis-keys.ts. Each task write is one Lua script that
// checks the task's rev (create: absent; put: not terminal, at the expected seq) and then writes the record, its
// per-state index sets, the ended index and its events, so listByState is a SUNION plus an MGET. Key writes and
// the by-hash lookup need a read before the write or a second lookup, so they are Lua scripts too.
import { RESP_TYPES } from 'redis';
import { Packr } from 'msgpackr';
import type { z } from 'zod';
import { TaskState, Task, TERMINAL_STATES } from '../../protocol/model.js';
import { KeyRecord, StoredPushConfig } from '../../protocol/records.js';
import { StoreCorruptError, type RecordKind } from './errors.js';
import { redisKeys } from './redis-keys.js';
import { redisPushJobs } from './redis-push-jobs.js';
import { keyByHash2, putKey3, sweepTasks7, writeTask10, type LuaScript } from './redis-scripts.js';
import { checked } from './validate.js';
import { connectRedis } from '../redis-connect.js';
import { deadlined, withDeadline } from '../deadline.js';
import type { Store, TaskPutOptions } from './types.js';
import { taskKey } from './types.js';
import { TaskEvent } from '../../protocol/events.js';

const packr = new Packr({ useRecords: false });

function decode<T>(opts: { schema: z.ZodType<T>; bytes: Buffer; record: RecordKind; id: string }): T {
  let value: unknown;
  try {
    value = packr.unpack(opts.bytes);
  } catch (cause) {
    throw new StoreCorruptError({ record: opts.record, id: opts.id, cause });
  }
  return checked({ schema: opts.schema, value, record: opts.record, id: opts.id });
}

export async function openRedisStore(opts: {
  url: string;
  prefix: string;
  /** a command unanswered this long fails with a TimeoutError (default 2 s) */
  commandTimeoutMs?: number;
  /** Connection errors; the client reconnects by itself and commands fail on their own meanwhile. */
  onError?: (err: Error) => void;
}): Promise<Store> {
  const client = await connectRedis({ url: opts.url, name: 'a2a-gateway:store', commandTimeoutMs: opts.commandTimeoutMs ?? 2_000, onError: opts.onError });
  const bin = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const k = redisKeys(opts.prefix);

  async function run(s: { script: LuaScript; keys: string[]; args: Array<string | Buffer> }): Promise<unknown> {
    const o = { keys: s.keys, arguments: s.args };
    try {
      return await bin.evalSha(s.script.sha, o);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return bin.eval(s.script.lua, o);
    }
  }

  const decodeTask = (bytes: Buffer, id: string) => decode({ schema: Task, bytes, record: 'task', id });
  const decodeKey = (bytes: Buffer, id: string) => decode({ schema: KeyRecord, bytes, record: 'key', id });
  const decodePush = (bytes: Buffer, id: string) =>
    decode({ schema: StoredPushConfig, bytes, record: 'push-config', id });

  /** The one task write path: check and write in one script (see writeTask10). */
  async function writeTask(task: Task, o: TaskPutOptions & { create: boolean }): Promise<boolean> {
    const state = task.status.state;
    const key = taskKey(task.workspaceId, task.id);
    const terminal = TERMINAL_STATES.has(state);
    const list = o.events ?? [];
    const last = list.length > 0 ? list[list.length - 1]!.seq : 0;
    const cut = o.retainEvents !== undefined && last - o.retainEvents > 0 ? String(last - o.retainEvents) : '';
    const args: Array<string | Buffer> = [
      o.create ? 'create' : 'put',
      o.expectSeq === undefined ? '' : String(o.expectSeq),
      packr.pack(task),
      `${task.seq ?? 0}:${terminal ? 'end' : 'open'}`,
      terminal ? String(task.updatedAt) : '',
      key,
      cut,
    ];
    for (const ev of list) args.push(String(ev.seq), packr.pack(ev));
    const reply = await run({
      script: writeTask10,
      keys: [k.task(key), k.taskRev(key), k.events(key), k.tasksEnded, k.tasksInState(state), ...TaskState.options.filter((s) => s !== state).map((s) => k.tasksInState(s))],
      args,
    });
    return reply === 1;
  }

  let closing: Promise<void> | undefined;
  const deadline = { ms: opts.commandTimeoutMs ?? 2_000, what: 'redis store' };

  return withDeadlines({
    kind: 'redis',
    keys: {
      async put(rec) {
        await run({
          script: putKey3,
          keys: [k.keyRecords, k.keyIdByHash, k.keyHashById],
          args: [rec.id, rec.hash, packr.pack(rec)],
        });
      },
      async get(id) {
        const bytes = await bin.hGet(k.keyRecords, id);
        return bytes === null ? undefined : decodeKey(bytes, id);
      },
      async getByHash(hash) {
        const reply = await run({ script: keyByHash2, keys: [k.keyIdByHash, k.keyRecords], args: [hash] });
        if (reply === null) return undefined;
        if (!Buffer.isBuffer(reply)) throw new StoreCorruptError({ record: 'key', id: `hash:${hash}` });
        const rec = decodeKey(reply, `hash:${hash}`);
        return rec.hash === hash ? rec : undefined;
      },
      async list(filter) {
        const out: KeyRecord[] = [];
        for (const [id, bytes] of await entries(k.keyRecords)) {
          const rec = decodeKey(bytes, id);
          if (filter?.workspaceId === undefined || rec.workspaceId === filter.workspaceId) out.push(rec);
        }
        return out;
      },
    },
    tasks: {
      create(task, o) {
        return writeTask(task, { ...o, create: true });
      },
      put(task, o) {
        return writeTask(task, { ...o, create: false });
      },
      async get(workspaceId, id) {
        const key = taskKey(workspaceId, id);
        const bytes = await bin.get(k.task(key));
        return bytes === null ? undefined : decodeTask(bytes, key);
      },
      async listByState(states) {
        if (states.length === 0) return [];
        const ids = await client.sUnion(states.map((s) => k.tasksInState(s)));
        if (ids.length === 0) return [];
        const values = await bin.mGet(ids.map((id) => k.task(id)));
        const out: Task[] = [];
        values.forEach((bytes, i) => {
          if (bytes !== null) out.push(decodeTask(bytes, ids[i]!));
        });
        return out;
      },
      async sweep({ endedBy, limit }) {
        if (limit <= 0) return [];
        const reply = await run({
          script: sweepTasks7,
          keys: [k.tasksEnded, ...TaskState.options.map((s) => k.tasksInState(s))],
          args: [String(endedBy), String(limit), k.task(''), k.taskRev(''), k.events(''), k.pushConfigs('')],
        });
        return (Array.isArray(reply) ? reply : []).map((id) => String(id));
      },
    },
    pushConfigs: {
      async put(cfg) {
        await client.hSet(k.pushConfigs(cfg.taskId), cfg.id, packr.pack(cfg));
      },
      async get(taskId, id) {
        const bytes = await bin.hGet(k.pushConfigs(taskId), id);
        return bytes === null ? undefined : decodePush(bytes, id);
      },
      async list(taskId) {
        return (await entries(k.pushConfigs(taskId))).map(([id, bytes]) => decodePush(bytes, id));
      },
      async delete(taskId, id) {
        return (await client.hDel(k.pushConfigs(taskId), id)) > 0;
      },
    },
    pushJobs: redisPushJobs({ run, keys: k }),
    events: {
      async append(key, list, retain) {
        if (list.length === 0) return;
        const last = list[list.length - 1]!.seq;
        const m = client.multi();
        for (const ev of list) m.zAdd(k.events(key), { score: ev.seq, value: packr.pack(ev) });
        if (last - retain > 0) m.zRemRangeByScore(k.events(key), '-inf', last - retain);
        await m.exec();
      },
      async after(key, after) {
        const list = await bin.zRangeByScore(k.events(key), `(${after}`, '+inf');
        return list.map((bytes) => decode({ schema: TaskEvent, bytes: bytes as Buffer, record: 'event', id: key }));
      },
    },
    meta: {
      async get(key) {
        const bytes = await bin.hGet(k.meta, key);
        if (bytes === null) return undefined;
        try {
          return packr.unpack(bytes);
        } catch (cause) {
          throw new StoreCorruptError({ record: 'meta', id: key, cause });
        }
      },
      async put(key, value) {
        await client.hSet(k.meta, key, packr.pack(value));
      },
    },
    async ping() {
      await client.ping();
    },
    close() {
      closing ??= (async () => {
        if (!client.isOpen) return;
        try {
          await client.close();
        } catch {
          // A socket that died under us has nothing left to flush; make sure it is released.
          if (client.isOpen) client.destroy();
        }
      })();
      return closing;
    },
  });

  /** Every call of every sub-store (and ping) gets the command deadline; close does not. */
  function withDeadlines(store: Store): Store {
    return {
      ...store,
      keys: deadlined(store.keys, deadline),
      tasks: deadlined(store.tasks, deadline),
      pushConfigs: deadlined(store.pushConfigs, deadline),
      pushJobs: deadlined(store.pushJobs, deadline),
      meta: deadlined(store.meta, deadline),
      events: deadlined(store.events, deadline),
      ping: () => withDeadline(store.ping(), { ...deadline, what: 'redis store.ping' }),
    };
  }

  /** A hash's fields with their values (rather than HVALS) so that a corrupt entry can be named by its id. */
  async function entries(key: string): Promise<Array<[string, Buffer]>> {
    return Object.entries(await bin.hGetAll(key));
  }
}
