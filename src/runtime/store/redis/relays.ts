// The Redis relay connections: one hash of RelayRecords keyed by connectionField(workspace, name).
import { RelayRecord } from '../../../protocol/relays.js';
import { connectionField } from '../../redis/keys.js';
import type { RelayStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { replaceSameId1 } from './scripts.js';
import { decode, packr } from './values.js';
import { listed } from '../validate.js';

export function redisRelayStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run' | 'onCorrupt'>): RelayStore {
  const { client, bin, onCorrupt, keys: k, run } = o;
  const read = (bytes: Buffer, id: string) => decode({ schema: RelayRecord, bytes, record: 'relay', id });
  return {
    async put(rec) {
      await client.hSet(k.relays, connectionField(rec.workspace, rec.name), packr.pack(rec));
    },
    async insert(rec) {
      // HSETNX: two adds at once store one
      return (await client.hSetNX(k.relays, connectionField(rec.workspace, rec.name), packr.pack(rec))) === 1;
    },
    async replace(rec) {
      const field = connectionField(rec.workspace, rec.name);
      return (await run({ script: replaceSameId1, keys: [k.relays], args: [field, rec.id, packr.pack(rec)] })) === 1;
    },
    async get(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.relays, field);
      return bytes === null ? undefined : read(bytes, field);
    },
    async list(filter) {
      const out: RelayRecord[] = [];
      for (const [field, bytes] of await entries(bin, k.relays)) {
        const rec = listed(onCorrupt, () => read(bytes, field));
        if (rec && (filter?.workspace === undefined || rec.workspace === filter.workspace)) out.push(rec);
      }
      return out.sort((a, b) => compare(a.workspace, b.workspace) || compare(a.name, b.name));
    },
    async delete(workspace, name) {
      return (await client.hDel(k.relays, connectionField(workspace, name))) > 0;
    },
  };
}

/** Byte order of UTF-8, as LMDB's keys sort, so both engines list in one order. */
const compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
