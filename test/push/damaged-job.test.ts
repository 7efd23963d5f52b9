// A damaged waiting webhook delivery (another version's record, a damaged file) does not hold up the others: the
// gateway names it in its log once and goes on delivering, on both engines. Real gateway on port 0, a real receiver on
// loopback, the injected clock.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { samplePushJob } from '../support/store-records.js';
import { drive, startReceiver } from '../support/webhooks.js';

async function check(t: Test, config: ConfigInput): Promise<void> {
  const clock = new ManualClock();
  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const gw = await startTestGateway({
    clock,
    timers: clock,
    log: (msg, fields) => lines.push({ msg, fields }),
    config: { ...config, push: { allowlist: ['127.0.0.1'] } },
  });
  t.teardown(() => gw.close());
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { key } = await gw.key();

  // due long ago, in a queue that sorts before any task's: the first one a claim meets
  await gw.gw.store.pushJobs.enqueue([{ ...samplePushJob({ queue: '0-damaged', seq: 1, dueAt: 0 }), attempts: 'many' } as never]);

  const sent = await gw.rpc({
    key,
    method: 'message/send',
    params: { ...msgB('deliver me'), configuration: { blocking: true, pushNotificationConfig: { url: rx.url } } },
  });
  t.equal(sent.json.result?.status?.state, 'completed');
  const delivered = await drive({ gw: gw.gw, clock, stepMs: 1_000, done: () => rx.deliveries.some((d) => d.status === 200) });
  t.ok(delivered, 'the good delivery arrives');

  const reported = lines.filter((l) => l.msg.startsWith('damaged stored record') && l.fields?.record === 'push-job');
  t.equal(reported.length, 1, 'the damaged one is named in the log, once however often the worker looks');
  t.match(reported[0]?.fields?.error, /stored push-job record .* is corrupt \((job\.)?attempts: /);
  t.notOk(
    lines.some((l) => l.msg.includes('push worker')),
    'the worker never failed a look at the store (it said "store unavailable" before)',
  );
}

t.test('lmdb: a damaged waiting delivery does not hold up the others', (t) => check(t, {}));

t.test('redis: a damaged waiting delivery does not hold up the others', (t) => {
  const prefix = testPrefix('damaged-job');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  return check(t, { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix });
});
