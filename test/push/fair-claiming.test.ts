// Fair claiming: a workspace whose receivers hang holds at most its share of the delivery slots
// (push.maxInFlightPerWorkspace), so another workspace's webhook goes out while those attempts still wait; on Redis
// the share holds across instances.
//
// The real gateway (port 0; LMDB in a temp dir, then the real Redis), real receivers on loopback, a ManualClock for
// every timer: the hanging attempts end only when the test moves the clock, so B's delivery arriving while the clock
// stands still proves it did not wait for them. The waits below poll real time only for HTTP round trips.
import t, { type Test } from 'tap';
import { parseConfig } from '../../src/config/parse.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { startReceiver, type Receiver } from '../support/webhooks.js';

const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 10_000, maxAttempts: 6, backoffBaseMs: 2_000, backoffMaxMs: 8_000 };
/** more of A's tasks than the worker has slots (16): without a share, A's due heads fill every one */
const A_TASKS = 24;

/** Polls (real time, for the HTTP round trips) until `done()` holds or `ms` pass; returns whether it held. */
async function until(done: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return done();
}

async function stage(
  t: { teardown(fn: () => unknown): void },
  config: ConfigInput,
): Promise<{ clock: ManualClock; gw: TestGateway; rxA: Receiver; rxB: Receiver; keyA: string; keyB: string }> {
  const clock = new ManualClock();
  const gw = await startTestGateway({ clock, timers: clock, config: { ...config, push: { ...PUSH, ...config.push } } });
  t.teardown(() => gw.close());
  // A's receiver accepts and never answers: each attempt waits for the (clock's) timeout
  const rxA = await startReceiver({ answer: () => ({ status: 200, hang: true }) });
  const rxB = await startReceiver();
  t.teardown(() => rxA.close());
  t.teardown(() => rxB.close());
  const { key: keyA } = await gw.key({ workspace: 'ws-a' });
  const { key: keyB } = await gw.key({ workspace: 'ws-b' });
  return { clock, gw, rxA, rxB, keyA, keyB };
}

async function send(gw: TestGateway, key: string, url: string, text: string): Promise<string> {
  const r = await gw.rpc({ method: 'message/send', key, params: { ...msgB(text), configuration: { blocking: false, pushNotificationConfig: { url } } } });
  if (typeof r.json?.result?.id !== 'string') throw new Error(`send failed: ${JSON.stringify(r.json)}`);
  return r.json.result.id as string;
}

async function scenario(t: Test, o: { config: ConfigInput; share: number }): Promise<void> {
  const { clock, gw, rxA, rxB, keyA, keyB } = await stage(t, o.config);
  const start = clock.now();
  await Promise.all(Array.from({ length: A_TASKS }, (_, i) => send(gw, keyA, `${rxA.url}?task=${i}`, `a${i}`)));
  t.ok(await until(() => rxA.deliveries.length >= o.share), "A's first attempts are under way (and hang)");

  const idB = await send(gw, keyB, rxB.url, 'b');
  t.ok(await until(() => rxB.deliveries.length > 0), "B's webhook arrives while A's receivers hang");
  t.equal(rxB.deliveries[0]?.json?.id, idB, "it is B's task");
  t.equal(clock.now(), start, 'no timeout has passed: none of A’s attempts has ended');
  t.ok(
    rxA.deliveries.every((d) => d.status === 0),
    "every attempt A's receiver saw is still unanswered",
  );
  t.equal(rxA.deliveries.length, o.share, `A holds its share of the slots (${o.share}), no more`);
  const waiting = await gw.gw.store.pushJobs.listWorkspace({ workspaceId: 'ws-a', limit: 1 });
  t.ok(waiting.total >= A_TASKS, "A's updates still wait, none lost");

  // A is not starved by its share: when its attempts time out, its next queues' heads go out
  clock.advance(PUSH.timeoutMs);
  t.ok(await until(() => rxA.deliveries.length >= 2 * o.share), "A's next heads are attempted once its first attempts end");
}

t.test('LMDB: one workspace with hanging receivers does not hold back another workspace’s webhook (default share 8)', async (t) => {
  await scenario(t, { config: {}, share: 8 });
});

t.test('Redis: the same, on the shared store', async (t) => {
  const prefix = testPrefix('push-fair');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  await scenario(t, { config: { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix }, share: 8 });
});

t.test('Redis, two instances: the share holds across them (a hanging workspace holds 2 slots in all, not 2 per instance)', async (t) => {
  const share = 2;
  const clock = new ManualClock();
  const rxA = await startReceiver({ answer: () => ({ status: 200, hang: true }) });
  const rxB = await startReceiver();
  t.teardown(() => rxA.close());
  t.teardown(() => rxB.close());
  const [one, two] = await startPair(t, { name: 'push-fair-pair', clock, settings: { push: { ...PUSH, maxInFlightPerWorkspace: share } } });
  const { key: keyA } = await one.key({ workspace: 'ws-a' });
  const { key: keyB } = await one.key({ workspace: 'ws-b' });
  const start = clock.now();
  // half of A's tasks sent to each instance: each one's worker is woken by its own sends and claims from the shared queues
  await Promise.all(Array.from({ length: 12 }, (_, i) => send(i % 2 === 0 ? one : two, keyA, `${rxA.url}?task=${i}`, `a${i}`)));
  t.ok(await until(() => rxA.deliveries.length >= share), "A's first attempts are under way (and hang)");
  // a send of B's to each instance: once both webhooks arrived, both workers have claimed again since A's sends (and
  // passed over A's due heads, older than B's, at its share)
  await send(one, keyB, `${rxB.url}?via=one`, 'b1');
  await send(two, keyB, `${rxB.url}?via=two`, 'b2');
  t.ok(await until(() => rxB.deliveries.length >= 2), "B's webhooks arrive through both instances while A's receivers hang");
  t.equal(clock.now(), start, 'no timeout has passed');
  t.equal(rxA.deliveries.length, share, `A holds its share (${share}) across both instances, not ${share} on each`);

  // the share frees as A's attempts end, on whichever instance: A's next heads go out, again at most `share` at once
  clock.advance(PUSH.timeoutMs);
  t.ok(await until(() => rxA.deliveries.length >= 2 * share), "A's next heads are attempted once its first attempts end");
  await send(one, keyB, `${rxB.url}?via=one`, 'b3');
  await send(two, keyB, `${rxB.url}?via=two`, 'b4');
  t.ok(await until(() => rxB.deliveries.length >= 4), 'both instances claimed again');
  t.equal(rxA.deliveries.length, 2 * share, 'still no more than the share at once');
});

t.test('LMDB: push.maxInFlightPerWorkspace sets the share (2)', async (t) => {
  await scenario(t, { config: { push: { maxInFlightPerWorkspace: 2 } }, share: 2 });
});

t.test('push.maxInFlightPerWorkspace: an integer from 1 to 16, default 8; anything else names the field', async (t) => {
  t.equal(parseConfig({}).push.maxInFlightPerWorkspace, 8);
  t.equal(parseConfig({ push: { maxInFlightPerWorkspace: 16 } }).push.maxInFlightPerWorkspace, 16);
  for (const bad of [0, 17, 2.5, '4']) {
    t.throws(() => parseConfig({ push: { maxInFlightPerWorkspace: bad as number } }), /push\.maxInFlightPerWorkspace/, `refused: ${JSON.stringify(bad)}`);
  }
});
