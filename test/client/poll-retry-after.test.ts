// A poll answered "not now" (429, 503; a bare body or a JSON-RPC error, as another gateway's rate limit) with
// Retry-After waits as long as the remote asked (seconds or an HTTP-date), never less; an ask past the call's deadline
// or past pollRetryAfterMaxMs fails the call at once (the remote task is asked to cancel, as at a timeout). Real
// node:http remote on loopback, ManualClock, no sleeps.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { recordingTimers, settlePolled, testClient, userMessage } from '../support/a2a-client.js';
import { cardServer, type Answer, type CardServer } from '../support/card-server.js';

const card = (url: string) => ({ name: 'busy', description: '', url, version: '1', protocolVersion: '0.3.0', capabilities: {} });
const rpc = (id: unknown, result: unknown): Answer => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
const task = (state: string) => ({ kind: 'task', id: 'r-1', contextId: 'c-1', status: { state } });

/** A poll's answer, or one made from the poll's JSON-RPC id (a JSON-RPC error echoes it). */
type PollAnswer = Answer | ((id: unknown) => Answer);

/** A JSON-RPC error answered with HTTP `status`, as another a2a-gateway answers its rate limit (-32004, 429) or a store outage (503). */
const rpcError =
  (status: number, code: number, message: string, headers: Record<string, string> = {}): PollAnswer =>
  (id) => ({ status, headers, body: { jsonrpc: '2.0', id, error: { code, message } } });

/** A remote whose polls are answered, in turn, by `polls` (then the task completed). */
function busyRemote(s: CardServer, polls: PollAnswer[]): RemoteEndpoint {
  s.route.set('/busy/.well-known/agent-card.json', () => ({ status: 200, body: card(`${s.url}/busy/rpc`) }));
  s.route.set('/busy/rpc', (_h, body) => {
    const { method, id } = JSON.parse(body) as { method: string; id: unknown };
    if (method === 'message/send') return rpc(id, task('working'));
    if (method === 'tasks/cancel') return rpc(id, task('canceled'));
    const next = polls.shift() ?? rpc(id, task('completed'));
    return typeof next === 'function' ? next(id) : next;
  });
  return { url: `${s.url}/busy`, credentials: { kind: 'none' } };
}

async function setup(t: Test, o: { timeoutMs: number; pollRetryAfterMaxMs?: number }) {
  const s = await cardServer(t);
  const clock = new ManualClock(Date.now());
  // waits under 100 s are the poll's; the deadline and each request's timeout are longer
  const timers = recordingTimers(clock, 100_000);
  const c = testClient({ clock, timers, pollBaseMs: 200, pollMaxMs: 200, random: () => 0.999, requestTimeoutMs: 1_000_000, ...o });
  t.teardown(() => c.close());
  /** runs a send to `endpoint`, moving the clock by each poll wait as it is armed */
  const run = (endpoint: RemoteEndpoint) => settlePolled(clock, timers, c.send({ endpoint, message: userMessage('x') }));
  const methods = () => s.seen.filter((x) => x.path === '/busy/rpc').map((x) => (JSON.parse(x.body) as { method: string }).method);
  return { s, clock, timers, run, methods };
}

t.test('Retry-After in seconds and as an HTTP-date is waited for, never less; a shorter one keeps the backoff', async (t) => {
  const { s, timers, run, methods } = await setup(t, { timeoutMs: 10 * 60_000 });
  const date = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
  const endpoint = busyRemote(s, [
    { status: 503, headers: { 'retry-after': '30' }, body: { error: 'busy' } },
    { status: 429, headers: { 'retry-after': new Date(date.getTime() + 20_000).toUTCString(), date: date.toUTCString() }, body: 'slow down' },
    { status: 503, headers: { 'retry-after': '0' }, body: 'busy' },
  ]);
  t.match(await run(endpoint), { v: { id: 'r-1', status: { state: 'completed' } } });
  t.same(timers.waits, [200, 30_000, 20_000, 200], 'backoff, then 30 s as asked, then 20 s (the date less the Date header), then the backoff');
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/get']);
});

t.test('a Retry-After past the call’s deadline fails the call at once, and the remote task is asked to cancel', async (t) => {
  const { s, clock, run, methods } = await setup(t, { timeoutMs: 200_000 });
  const start = clock.now();
  const endpoint = busyRemote(s, [{ status: 503, headers: { 'retry-after': '240' }, body: 'busy' }]);
  t.match(await run(endpoint), {
    e: {
      code: 'bad_response',
      httpStatus: 503,
      retryAfterMs: 240_000,
      message: /HTTP 503, asking to be polled again after 240000 ms \(Retry-After\): past the call's deadline/,
    },
  });
  t.equal(clock.now() - start, 200, 'no wait past the first poll’s');
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/cancel']);
});

t.test('a Retry-After past pollRetryAfterMaxMs fails the call at once, even with a day left', async (t) => {
  const { s, run, methods } = await setup(t, { timeoutMs: 86_400_000, pollRetryAfterMaxMs: 60_000 });
  const endpoint = busyRemote(s, [{ status: 429, headers: { 'retry-after': '3600' }, body: 'later' }]);
  t.match(await run(endpoint), { e: { code: 'bad_response', message: /after 3600000 ms \(Retry-After\): more than the 60000 ms honoured/ } });
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/cancel']);
});

t.test('a JSON-RPC error sent with 429 or 503 is "not now" as a bare status is: polled again, honouring Retry-After', async (t) => {
  const { s, timers, run, methods } = await setup(t, { timeoutMs: 10 * 60_000 });
  const endpoint = busyRemote(s, [
    rpcError(429, -32004, 'rate limit exceeded', { 'retry-after': '30' }),
    rpcError(503, -32603, 'store unavailable'),
    rpcError(429, -32004, 'rate limit exceeded', { 'retry-after': '1' }),
  ]);
  t.match(await run(endpoint), { v: { id: 'r-1', status: { state: 'completed' } } });
  t.same(timers.waits, [200, 30_000, 200, 1_000], 'backoff, 30 s as asked, the backoff, 1 s as asked');
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/get']);
});

t.test('five JSON-RPC errors with 429/503 in a row: the remote’s error stands and its task is asked to cancel', async (t) => {
  const { s, run, methods } = await setup(t, { timeoutMs: 10 * 60_000 });
  const endpoint = busyRemote(s, [
    rpcError(503, -32603, 'store unavailable'),
    rpcError(429, -32004, 'rate limit exceeded'),
    rpcError(503, -32603, 'store unavailable'),
    rpcError(429, -32004, 'rate limit exceeded'),
    rpcError(429, -32004, 'rate limit exceeded'),
  ]);
  t.match(await run(endpoint), {
    e: { code: 'remote_error', remoteCode: -32004, httpStatus: 429, message: 'the remote answered tasks/get with error -32004: rate limit exceeded' },
  });
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/cancel']);
});

t.test('a JSON-RPC error with a Retry-After past the call’s deadline fails the call at once, asking the task to cancel', async (t) => {
  const { s, run, methods } = await setup(t, { timeoutMs: 200_000 });
  const endpoint = busyRemote(s, [rpcError(429, -32004, 'rate limit exceeded', { 'retry-after': '240' })]);
  t.match(await run(endpoint), {
    e: {
      code: 'remote_error',
      remoteCode: -32004,
      retryAfterMs: 240_000,
      message: /error -32004: rate limit exceeded, asking to be polled again after 240000 ms \(Retry-After\): past the call's deadline/,
    },
  });
  t.same(methods(), ['message/send', 'tasks/get', 'tasks/cancel']);
});

t.test('a JSON-RPC error sent with 200 or 500 still ends the wait at once (the remote spoke for its task)', async (t) => {
  for (const status of [200, 500]) {
    const { s, run, methods } = await setup(t, { timeoutMs: 10 * 60_000 });
    const endpoint = busyRemote(s, [rpcError(status, -32001, 'task not found')]);
    t.match(await run(endpoint), { e: { code: 'remote_error', remoteCode: -32001 } }, `HTTP ${status}`);
    t.same(methods(), ['message/send', 'tasks/get'], `HTTP ${status}: no second poll, no cancel`);
  }
});
