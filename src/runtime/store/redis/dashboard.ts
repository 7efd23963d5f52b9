// The Redis dashboard state: sessions as strings with a TTL, keys' last use in one hash (raised, never lowered, by a
// script), and each workspace's recent deliveries as a list trimmed in the same transaction that pushes to it.
import { DashboardSession, DeliveryRecord, KeyLastUsed } from '../../../protocol/dashboard.js';
import type { DashboardStore } from '../types.js';
import type { RedisParts } from './client.js';
import { script } from './scripts.js';
import { decode, packr } from './values.js';
import { checked, listed } from '../validate.js';

/** KEYS: keyLastUsed. ARGV: key id, time, key id, time, ... Each field becomes the larger of its stored and given time. */
const markUsed1 = script({
  numberOfKeys: 1,
  lua: `
for i = 1, #ARGV, 2 do
  local old = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if not old or old < tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1
`,
});

export function redisDashboardStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run' | 'onCorrupt'>): DashboardStore {
  const { client, bin, keys: k, run, onCorrupt } = o;
  return {
    async putSession(s, { now }) {
      // the TTL only collects abandoned sessions; validity is judged on the gateway's clock
      await client.set(k.dashboardSession(s.id), packr.pack(s), { expiration: { type: 'PX', value: Math.max(1, Math.ceil(s.expiresAt - now)) } });
    },
    async getSession(id) {
      const bytes = await bin.get(k.dashboardSession(id));
      return bytes === null ? undefined : decode({ schema: DashboardSession, bytes, record: 'session', id });
    },
    async deleteSession(id) {
      await client.del(k.dashboardSession(id));
    },
    async markKeysUsed(used) {
      if (used.length === 0) return;
      await run({ script: markUsed1, keys: [k.keyLastUsed], args: used.flatMap(([id, at]) => [id, String(at)]) });
    },
    async keysLastUsed(keyIds) {
      const out = new Map<string, number>();
      if (keyIds.length === 0) return out;
      const values = await client.hmGet(k.keyLastUsed, [...keyIds]);
      keyIds.forEach((id, i) => {
        const v = values[i];
        if (v === null || v === undefined) return;
        // one damaged time (with onCorrupt) is left out: the keys page still lists every key (markUsed1 replaces it)
        const at = listed(onCorrupt, () => checked({ schema: KeyLastUsed, value: Number(v), record: 'key-usage', id }));
        if (at !== undefined) out.set(id, at);
      });
      return out;
    },
    async recordDelivery(workspace, d, { keep }) {
      const key = k.recentDeliveries(workspace);
      await client
        .multi()
        .lPush(key, packr.pack(d))
        .lTrim(key, 0, keep - 1)
        .exec();
    },
    async deliveries(workspace) {
      const list = await bin.lRange(k.recentDeliveries(workspace), 0, -1);
      return list.map((bytes, i) => decode({ schema: DeliveryRecord, bytes, record: 'delivery', id: `${workspace}#${i}` }));
    },
  };
}
