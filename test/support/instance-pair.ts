// Two gateway instances on the tests' real Redis, under one key prefix of their own (scale-out tests): each one's
// config, both started, and both closed and their keys removed when the test ends.
import type { Test } from 'tap';
import type { ConfigInput } from '../../src/config.js';
import type { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from './redis.js';

/** Settings beside the shared store's (agents, push, instances, ...): the same for both instances. */
export type PairSettings = Omit<ConfigInput, 'store' | 'redisUrl' | 'redisPrefix' | 'instanceId'>;

/** One instance's config on the tests' Redis under `prefix`, named `id`. */
export const onRedis = (o: { prefix: string; id: string; settings?: PairSettings }): ConfigInput => ({
  ...o.settings,
  store: 'redis',
  redisUrl: REDIS_URL,
  redisPrefix: o.prefix,
  instanceId: o.id,
});

/**
 * Instances `gw-a` and `gw-b` (or `ids`) on one fresh prefix (named after `name`, or `prefix` as given), on `clock`
 * (clock and timers) when one is given. Closed in that order at the test's end, then the prefix is emptied.
 */
export async function startPair(
  t: Test,
  o: { name?: string; prefix?: string; settings?: PairSettings; clock?: ManualClock; ids?: [string, string] } = {},
): Promise<[TestGateway, TestGateway]> {
  const prefix = o.prefix ?? testPrefix(o.name ?? 'pair');
  const [idA, idB] = o.ids ?? ['gw-a', 'gw-b'];
  const time = o.clock ? { clock: o.clock, timers: o.clock } : {};
  const a = await startTestGateway({ config: onRedis({ prefix, id: idA, ...(o.settings && { settings: o.settings }) }), ...time });
  let b: TestGateway;
  try {
    b = await startTestGateway({ config: onRedis({ prefix, id: idB, ...(o.settings && { settings: o.settings }) }), ...time });
  } catch (e) {
    await a.close();
    throw e;
  }
  t.teardown(async () => {
    await a.close();
    await b.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  return [a, b];
}
