// Rotating a key that has expired is refused saying so, as rotating a revoked one is, not with a field error about an
// `expires_at` the caller never sent; a key still valid at the same moment rotates, its expiry copied. Through the
// dashboard's admin API over HTTP, on an injected clock.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { adminCall } from '../support/admin-api.js';
import { startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

t.test('an expired key is not rotated: the answer says it expired, and nothing is made', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, timers: clock, config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ trust: 'admin' });
  const expiring = await tg.key({ trust: 'read_only', expiresAt: T0 + 1_000 });
  const later = await tg.key({ trust: 'read_only', expiresAt: T0 + 1_001 });
  clock.advance(1_000);

  const r = await adminCall(tg, 'POST', `/keys/${expiring.id}/rotate`, { bearer: admin.key });
  t.equal(r.status, 400);
  t.equal(r.json.error, 'invalid_input');
  t.match(r.json.message, new RegExp(`key ${expiring.id} expired at 2026-01-01T12:00:01.000Z; create a new one instead`));
  t.notOk(r.json.field, 'no field of the request is at fault');
  const keys = await adminCall(tg, 'GET', '/keys', { bearer: admin.key });
  t.equal(keys.json.keys.length, 3, 'no key was made');

  const ok = await adminCall(tg, 'POST', `/keys/${later.id}/rotate`, { bearer: admin.key });
  t.equal(ok.status, 200, 'a key 1 ms from its expiry still rotates');
  t.equal(ok.json.expires_at, '2026-01-01T12:00:01.001Z', 'its expiry copied');
});
