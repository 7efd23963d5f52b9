// Two gateway instances on the tests' real Redis, under one key prefix of their own (scale-out tests): each one's
// config, both started, and both closed and their keys removed when the test ends.
import type { Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import type { ManualClock } from '../../src/runtime/clock.js';
import type { Log } from '../../src/runtime/log.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from './redis.js';

/** Settings beside the shared store's (agents, push, instances, ...): the same for both instances. */
export type PairSettings = Omit<ConfigInput, 'store' | 'redisUrl' | 'redisPrefix' | 'instanceId'>;

/**
 * What one instance of a pair has of its own: the address it reaches the tests' Redis at (a forwarder the test can
 * cut), a manual clock (clock and timers) in place of the pair's, a log the test reads.
 */
export interface OwnSettings {
  redisUrl?: string;
  clock?: ManualClock;
  log?: Log;
}

/** One instance's config on the tests' Redis (or `redisUrl`, a way to it) under `prefix`, named `id`. */
export const onRedis = (o: { prefix: string; id: string; settings?: PairSettings; redisUrl?: string }): ConfigInput => ({
  ...o.settings,
  store: 'redis',
  redisUrl: o.redisUrl ?? REDIS_URL,
  redisPrefix: o.prefix,
  instanceId: o.id,
});

/**
 * Instances `gw-a` and `gw-b` (or `ids`) on one fresh prefix (named after `name`, or `prefix` as given), on `clock`
 * (clock and timers) when one is given; `a` and `b` are what each has of its own. Closed in that order at the test's
 * end, then the prefix is emptied.
 */
export async function startPair(
  t: Test,
  o: {
    name?: string;
    prefix?: string;
    settings?: PairSettings;
    clock?: ManualClock;
    ids?: [string, string];
    a?: OwnSettings;
    b?: OwnSettings;
  } = {},
): Promise<[TestGateway, TestGateway]> {
  const prefix = o.prefix ?? testPrefix(o.name ?? 'pair');
  const [idA, idB] = o.ids ?? ['gw-a', 'gw-b'];
  const start = (id: string, own: OwnSettings = {}) => {
    const clock = own.clock ?? o.clock;
    return startTestGateway({
      config: onRedis({ prefix, id, ...(o.settings && { settings: o.settings }), ...(own.redisUrl && { redisUrl: own.redisUrl }) }),
      ...(clock && { clock, timers: clock }),
      ...(own.log && { log: own.log }),
    });
  };
  const a = await start(idA, o.a);
  let b: TestGateway;
  try {
    b = await start(idB, o.b);
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
