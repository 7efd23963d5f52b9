// The Redis outbound results: one hash per workspace (id -> StoredResult) and the `result-expiry` sorted set the sweep reads.
import { StoredResult } from '../../../protocol/connections.js';
import { resultMember } from '../../redis/keys.js';
import { oldestFirst } from '../order.js';
import type { ResultStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { script } from './scripts.js';
import { decode, packr } from './values.js';

/**
 * KEYS: resultExpiry. ARGV: now, limit, the results hash prefix. Deletes up to `limit` results that expire by `now`
 * with their index entries; returns how many records went. A member is `<workspace>/<id>`, the workspace without '/'.
 */
const sweepResults1 = script({
  numberOfKeys: 1,
  lua: `
local n = 0
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  local slash = string.find(m, '/', 1, true)
  if slash then
    n = n + redis.call('HDEL', ARGV[3] .. string.sub(m, 1, slash - 1), string.sub(m, slash + 1))
  end
  redis.call('ZREM', KEYS[1], m)
end
return n
`,
});

export function redisResultStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run'>): ResultStore {
  const { client, bin, keys: k, run } = o;
  const decodeResult = (bytes: Buffer, workspace: string, id: string) =>
    decode({ schema: StoredResult, bytes, record: 'result', id: resultMember(workspace, id) });
  return {
    async put(r) {
      // ZADD moves a replaced result's score, so its index entry always has the stored expiry
      await client
        .multi()
        .hSet(k.results(r.workspace), r.id, packr.pack(r))
        .zAdd(k.resultExpiry, { score: r.expiresAt, value: resultMember(r.workspace, r.id) })
        .exec();
    },
    async get(workspace, id) {
      const bytes = await bin.hGet(k.results(workspace), id);
      return bytes === null ? undefined : decodeResult(bytes, workspace, id);
    },
    async list({ workspace, connection }) {
      const out: StoredResult[] = [];
      for (const [id, bytes] of await entries(bin, k.results(workspace))) {
        const r = decodeResult(bytes, workspace, id);
        if (connection === undefined || r.connection === connection) out.push(r);
      }
      return out.sort(oldestFirst);
    },
    async sweep({ now, limit }) {
      if (limit <= 0) return 0;
      return Number(await run({ script: sweepResults1, keys: [k.resultExpiry], args: [String(now), String(limit), k.idPrefix.results] }));
    },
  };
}
