// A stream's key over its life, on the injected clock (held in the h-auth sweep): a key that reaches its expires_at
// while its stream is open ends the stream with "API key expired" at the next key check; a key rotated while its
// stream is open keeps the stream (the old key stays valid until revoked) and ends it when the old key is revoked,
// while the new key works.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { revokeKey, rotateKey } from '../../src/runtime/key-admin.js';
import { slowB, startTestGateway } from '../support/gateway.js';
import { openSse, type SseClient } from '../support/sse.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
/** the stream's frames that carry data, once it ended */
const ending = async (s: SseClient) => (await s.all()).filter((f) => f.data).at(-1)?.data;
/** the stream's first event (past the opening comment) */
async function firstEvent(s: SseClient) {
  for (;;) {
    const f = await s.next();
    if (!f || f.data) return f?.data;
  }
}

t.test('expiry and rotation while a stream is open', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, timers: clock, config: { streaming: { keyCheckMs: 1_000 } } });
  t.teardown(() => tg.close());
  const deps = { keys: tg.gw.store.keys, relays: tg.gw.store.relays, secret: tg.gw.secret, clock };

  const expiring = await tg.key({ expiresAt: T0 + 10_000 });
  const s = await openSse({ url: tg.url, key: expiring.key, method: 'message/stream', params: slowB({ ms: 600_000, steps: 600 }) });
  t.teardown(() => s.close());
  t.equal(s.status, 200);
  t.ok((await firstEvent(s))?.result, 'the stream opened');
  clock.advance(9_999);
  t.equal((await tg.rpc({ method: 'agents/list', key: expiring.key, params: {} })).status, 200, '1 ms before expires_at the key still acts');
  clock.advance(1_001);
  const end = await ending(s);
  t.equal(end?.error?.code, -32003, 'at the next check after expires_at the stream ends unauthorized');
  t.equal(end?.error?.message, 'Unauthorized: API key expired');

  const old = await tg.key({});
  const s2 = await openSse({ url: tg.url, key: old.key, method: 'message/stream', params: slowB({ ms: 600_000, steps: 600 }) });
  t.teardown(() => s2.close());
  t.ok((await firstEvent(s2))?.result, 'a second stream opened');
  const rotated = await rotateKey(deps, old.id);
  clock.advance(2_000);
  t.equal((await tg.rpc({ method: 'agents/list', key: old.key, params: {} })).status, 200, 'after rotation the old key still acts');
  t.equal((await tg.rpc({ method: 'agents/list', key: rotated.key, params: {} })).status, 200, 'and the new one too');
  await revokeKey(deps, old.id);
  clock.advance(1_000);
  const end2 = await ending(s2);
  t.equal(end2?.error?.message, 'Unauthorized: API key revoked', 'revoking the old key ends the stream it held');
  t.equal((await tg.rpc({ method: 'agents/list', key: rotated.key, params: {} })).status, 200, 'the rotated key works on');
});
