// The Redis outbound connections: one hash of records and one of statuses, both keyed by connectionField(workspace, name).
import { ConnectionRecord, ConnectionStatus } from '../../../protocol/connections.js';
import { connectionField } from '../../redis/keys.js';
import type { ConnectionStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { putIfVersion1, script } from './scripts.js';
import { decode, packr } from './values.js';
import { versionOf } from '../versioned.js';
import { listed } from '../validate.js';

/** KEYS: connections, connectionStatus. ARGV: field, packed status. Writes the status only while the connection exists. */
const putStatus2 = script({
  numberOfKeys: 2,
  lua: `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`,
});

export function redisConnectionStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run' | 'onCorrupt'>): ConnectionStore {
  const { client, bin, onCorrupt, keys: k, run } = o;
  const decodeRecord = (bytes: Buffer, id: string) => decode({ schema: ConnectionRecord, bytes, record: 'connection', id });
  return {
    async insert(rec) {
      // HSETNX: two adds at once store one
      return (await client.hSetNX(k.connections, connectionField(rec.workspace, rec.name), packr.pack(rec))) === 1;
    },
    async putIfVersion(rec, version) {
      const field = connectionField(rec.workspace, rec.name);
      return (await run({ script: putIfVersion1, keys: [k.connections], args: [field, version, packr.pack(rec)] })) === 1;
    },
    async get(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.connections, field);
      return bytes === null ? undefined : decodeRecord(bytes, field);
    },
    async getVersioned(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.connections, field);
      return bytes === null ? undefined : { rec: decodeRecord(bytes, field), version: versionOf(bytes) };
    },
    async list(filter) {
      const out: ConnectionRecord[] = [];
      for (const [field, bytes] of await entries(bin, k.connections)) {
        const rec = listed(onCorrupt, () => decodeRecord(bytes, field));
        if (rec && (filter?.workspace === undefined || rec.workspace === filter.workspace)) out.push(rec);
      }
      return out.sort((a, b) => compare(a.workspace, b.workspace) || compare(a.name, b.name));
    },
    async delete(workspace, name) {
      const field = connectionField(workspace, name);
      const [removed] = await client.multi().hDel(k.connections, field).hDel(k.connectionStatus, field).exec();
      return Number(removed) > 0;
    },
    async putStatus(workspace, name, status) {
      await run({ script: putStatus2, keys: [k.connections, k.connectionStatus], args: [connectionField(workspace, name), packr.pack(status)] });
    },
    async getStatus(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.connectionStatus, field);
      return bytes === null ? undefined : decode({ schema: ConnectionStatus, bytes, record: 'connection-status', id: field });
    },
  };
}

/** Byte order of UTF-8, as LMDB's keys sort, so both engines list in one order. */
const compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
