// Every reply on the admin routes carries what a normal admin reply carries (Cache-Control: no-store, the CSP and the
// other security headers), including those the transport makes itself: the 413 for a body past the admin limit, the
// 408 for a body that did not arrive in time, and the task live view's stream. Before, those three went out with
// none of them. Real gateway (port 0, real LMDB), raw sockets for the slow body, the injected clock for its deadline.
import { connect } from 'node:net';
import t from 'tap';
import { until } from '../support/a2a-client.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const CARRIED = ['cache-control', 'content-security-policy', 'x-content-type-options', 'referrer-policy', 'x-frame-options'];

/** The headers of a raw HTTP response, names lower-cased. */
function headersOf(raw: string): Record<string, string> {
  const lines = raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n').slice(1);
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
}

t.test('413, 408 and the live view carry the headers of every admin reply', async (t) => {
  const clock = new ManualClock(Date.now());
  const tg = await startTestGateway({ clock, timers: clock, config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const auth = { Authorization: `Bearer ${admin.key}` };

  const normal = await fetch(`${tg.url}/api/admin/keys`, { headers: auth });
  t.equal(normal.status, 200);
  await normal.text();
  const want = Object.fromEntries(CARRIED.map((h) => [h, normal.headers.get(h)]));
  t.equal(want['cache-control'], 'no-store', 'a normal admin reply: no-store');
  t.ok(
    CARRIED.every((h) => want[h]),
    'and every security header',
  );

  const big = await fetch(`${tg.url}/api/admin/keys`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
  });
  t.equal(big.status, 413);
  t.match(await big.json(), { error: 'payload_too_large' });
  t.same(Object.fromEntries(CARRIED.map((h) => [h, big.headers.get(h)])), want, '413: the same headers');

  // a body that never finishes: 408 when the deadline passes on the injected clock
  const before = clock.pending;
  let raw = '';
  let closed = false;
  const s = connect(Number(new URL(tg.url).port), '127.0.0.1');
  t.teardown(() => s.destroy());
  s.on('data', (d) => (raw += d.toString()));
  s.on('error', () => undefined);
  s.on('close', () => (closed = true));
  s.write(`POST /api/admin/keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`);
  await until(() => clock.pending > before, 'the body deadline is armed');
  clock.advance(60_000);
  await until(() => closed, 'the server closes the connection');
  t.match(raw, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  const slow = headersOf(raw);
  t.same(Object.fromEntries(CARRIED.map((h) => [h, slow[h] ?? null])), want, '408: the same headers');

  const task = await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('hi', { metadata: { agentId: 'converse' } }) });
  const live = await fetch(`${tg.url}/api/admin/tasks/${task.json.result.id}/events`, { headers: auth });
  t.equal(live.status, 200);
  t.equal(live.headers.get('content-type'), 'text/event-stream');
  t.same(Object.fromEntries(CARRIED.map((h) => [h, live.headers.get(h)])), want, 'the live view: the same headers');
  await live.body?.cancel();
});
