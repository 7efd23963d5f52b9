// The concrete limiter and event bus a config's store picks: in this process on LMDB (one server per data dir), on
// Redis when instances share it (their limits and events are shared too).
import type { Config } from './config/schema.js';
import type { Clock } from './runtime/clock.js';
import { createLocalBus, createRedisBus, type EventBus } from './runtime/events/bus.js';
import { createMemoryLimiter } from './runtime/limiter/memory.js';
import { createRedisLimiter } from './runtime/limiter/redis.js';
import type { Limiter } from './runtime/limiter/types.js';
import { limiterPrefix } from './runtime/redis/keys.js';

export async function openLimiter(o: { config: Config; clock: Clock; onError: (e: Error) => void }): Promise<Limiter> {
  const { config, clock } = o;
  return config.store === 'redis'
    ? await createRedisLimiter({
        url: config.redisUrl,
        prefix: limiterPrefix(config.redisPrefix),
        clock,
        commandTimeoutMs: config.redis.commandTimeoutMs,
        onError: o.onError,
      })
    : createMemoryLimiter({ clock });
}

export async function openBus(o: { config: Config; onError: (e: Error) => void }): Promise<EventBus> {
  const { config } = o;
  return config.store === 'redis'
    ? await createRedisBus({ url: config.redisUrl, prefix: config.redisPrefix, commandTimeoutMs: config.redis.commandTimeoutMs, onError: o.onError })
    : createLocalBus();
}
