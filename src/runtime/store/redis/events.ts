// The Redis task events: one sorted set per task (packed events scored by seq), trimmed to the last `retain`.
import { TaskEvent } from '../../../protocol/events.js';
import type { EventStore } from '../types.js';
import type { RedisParts } from './client.js';
import { decode, packr } from './values.js';

export function redisEventStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys'>): EventStore {
  const { client, bin, keys: k } = o;
  return {
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
  };
}
