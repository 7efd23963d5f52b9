// A dashboard session's live views end with the session: signing out (on this instance or any other sharing the store)
// or the session expiring ends a task's live view opened with its cookie within one `streaming.keyCheckMs`, as
// revoking the key does; a view opened with the same key as Bearer is not the session's and stays open.
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { adminCall, adminSignIn } from '../support/admin-api.js';
import { openLiveView } from '../support/admin-live-view.js';
import { startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

async function setup(t: Test) {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, timers: clock, config: { dashboard: { enabled: true, sessionTtlMs: 60_000 } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const sent = await tg.rpc({
    method: 'message/send',
    key: admin.key,
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }], metadata: { agentId: 'converse' } } },
  });
  t.equal(sent.json.result.status.state, 'input-required', 'a task that stays open');
  /** the task's live view, read as the dashboard's EventSource reads it */
  const live = (headers: Record<string, string>) => openLiveView(t, { url: tg.url, taskId: sent.json.result.id, headers });
  return { clock, tg, admin, live };
}

t.test('signing out ends the live views opened with the session; the same key as Bearer keeps its own', async (t) => {
  const { clock, tg, admin, live } = await setup(t);
  const s = await adminSignIn(tg, admin.key);
  const viaSession = await live({ Cookie: s.cookie });
  const viaBearer = await live({ Authorization: `Bearer ${admin.key}` });
  const out = await adminCall(tg, 'DELETE', '/session', { cookie: s.cookie, csrf: s.csrf });
  t.equal(out.status, 200, 'signed out');
  clock.advance(1_000);
  t.equal(await viaSession.end(5_000), 'ended', "the session's view ends: sign-out leaves nothing of it streaming");
  clock.advance(1_000);
  t.equal(await viaBearer.end(200), 'open', "the key's own view stays open");
});

t.test("a session that expires ends its live views; one deleted from the shared store (another instance's sign-out) too", async (t) => {
  const { clock, tg, admin, live } = await setup(t);
  const a = await adminSignIn(tg, admin.key);
  const b = await adminSignIn(tg, admin.key);
  const expiring = await live({ Cookie: a.cookie });
  const signedOutElsewhere = await live({ Cookie: b.cookie });
  clock.advance(1_000);
  t.equal(await expiring.end(200), 'open', 'open while the session lives');
  // another instance's sign-out: the session's record (kept under a hash of the cookie's token) leaves the store
  const token = b.cookie.slice(b.cookie.indexOf('=') + 1);
  await tg.gw.store.dashboard.deleteSession(createHash('sha256').update(token).digest('base64url'));
  clock.advance(1_000);
  t.equal(await signedOutElsewhere.end(5_000), 'ended', 'the view of a session signed out elsewhere ends');
  t.equal(await expiring.end(200), 'open', 'the other session is not touched');
  clock.advance(60_000);
  // the watch's checks come every keyCheckMs of the clock: a few of them, each given real time to read the store
  let expired: 'ended' | 'event' | 'open' = 'open';
  for (let i = 0; i < 10 && expired === 'open'; i++) {
    clock.advance(1_000);
    expired = await expiring.end(300);
  }
  t.equal(expired, 'ended', 'ended once its session expired');
  t.equal((await adminCall(tg, 'GET', '/session', { cookie: a.cookie })).status, 401);
});
