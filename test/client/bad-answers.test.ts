// Remotes that answer badly (a real node:http server with exactly the bad answer): each failure is an OutboundError
// with its code; over-size bodies and events are cut off; a stream that ends before its task settles is polled.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { recordingTimers, settlePolled, testClient, until, userMessage } from '../support/a2a-client.js';
import { cardServer, type Answer, type CardServer } from '../support/card-server.js';

const card = (url: string, streaming = false) => ({ name: 'bad', description: '', url, version: '1', protocolVersion: '0.3.0', capabilities: { streaming } });
const rpc = (id: unknown, result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
const none = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'none' } });

/** a remote at `/<name>` whose JSON-RPC endpoint `/<name>/rpc` answers with `answer` */
function remoteAt(s: CardServer, name: string, answer: (method: string, id: unknown) => Answer, o: { streaming?: boolean } = {}): RemoteEndpoint {
  s.route.set(`/${name}/.well-known/agent-card.json`, () => ({ status: 200, body: card(`${s.url}/${name}/rpc`, o.streaming) }));
  s.route.set(`/${name}/rpc`, (_h, body) => answer(JSON.parse(body).method, JSON.parse(body).id));
  return none(`${s.url}/${name}`);
}

t.test('answers that are not a task, not JSON-RPC, or not 2xx', async (t) => {
  const s = await cardServer(t);
  const c = testClient();
  t.teardown(() => c.close());
  const send = (e: RemoteEndpoint) => c.send({ endpoint: e, message: userMessage('x') }).catch((err: unknown) => err);

  t.match(await send(remoteAt(s, 'notask', (_m, id) => rpc(id, { foo: 1 }))), { code: 'bad_response', message: /not a task: result\.id: / });
  t.match(await send(remoteAt(s, 'noresult', (_m, id) => ({ status: 200, body: { jsonrpc: '2.0', id } }))), {
    code: 'bad_response',
    message: /not a JSON-RPC response with a result/,
  });
  t.match(await send(remoteAt(s, 'html', () => ({ status: 500, body: '<html>oops</html>' }))), { code: 'bad_response', message: /HTTP 500/ });
  t.match(await send(remoteAt(s, 'moved', () => ({ status: 307, headers: { location: 'http://127.0.0.1:1/' } }))), {
    code: 'bad_response',
    message: /redirects are not followed/,
  });
  t.match(
    await send(remoteAt(s, 'limited', (_m, id) => ({ status: 429, body: { jsonrpc: '2.0', id, error: { code: -32004, message: 'Rate limit exceeded' } } }))),
    { code: 'remote_error', remoteCode: -32004, message: /error -32004: Rate limit exceeded/ },
    'a JSON-RPC error is the remote’s, whatever the HTTP status',
  );
});

t.test('a body or a stream event past maxResponseBytes is refused', async (t) => {
  const s = await cardServer(t);
  const c = testClient({ maxResponseBytes: 2_000 });
  t.teardown(() => c.close());
  const big = 'x'.repeat(5_000);
  s.route.set('/bigcard/.well-known/agent-card.json', () => ({ status: 200, body: { ...card(`${s.url}/rpc`), description: big } }));
  t.match(await c.discover(none(`${s.url}/bigcard`)).catch((e: unknown) => e), { code: 'bad_response', message: /larger than 2000 bytes/ });
  s.route.set('/chunked/.well-known/agent-card.json', () => ({ status: 200, chunked: true, body: { ...card(`${s.url}/rpc`), description: big } }));
  t.match(
    await c.discover(none(`${s.url}/chunked`)).catch((e: unknown) => e),
    { code: 'bad_response', message: /larger than 2000 bytes/ },
    'also without Content-Length',
  );
  const sse = remoteAt(s, 'bigevent', () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `data: ${big}\n\n` }), { streaming: true });
  t.match(await c.send({ endpoint: sse, message: userMessage('x'), stream: true }).catch((e: unknown) => e), {
    code: 'bad_response',
    message: /stream event is larger than 2000 bytes/,
  });
  // empty data lines add nothing but the line ends that join them: 3,000 of them before a small task are one event
  // of over 3,000 bytes (counted as 0 before, so a remote could pile up an array of millions of empty lines)
  const task = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { kind: 'task', id: 't', status: { state: 'completed' } } });
  const empties = remoteAt(
    s,
    'empties',
    (_m, id) => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `${'data:\n'.repeat(3_000)}data: ${task(id)}\n\n` }),
    {
      streaming: true,
    },
  );
  t.match(await c.send({ endpoint: empties, message: userMessage('x'), stream: true }).catch((e: unknown) => e), {
    code: 'bad_response',
    message: /stream event is larger than 2000 bytes/,
  });
  const garbled = remoteAt(s, 'garbled', () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: ': hi\n\ndata: {nope\n\n' }), {
    streaming: true,
  });
  t.match(await c.send({ endpoint: garbled, message: userMessage('x'), stream: true }).catch((e: unknown) => e), {
    code: 'bad_response',
    message: /message\/stream stream is not JSON/,
  });
});

t.test('a stream counts the bytes the remote sent, not UTF-16 units: multi-byte characters hold no more', async (t) => {
  const s = await cardServer(t);
  const c = testClient({ maxResponseBytes: 2_000 });
  t.teardown(() => c.close());
  const sseOf = (body: string): Answer => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
  const send = (e: RemoteEndpoint) => c.send({ endpoint: e, message: userMessage('x'), stream: true }).catch((err: unknown) => err);
  // 700 euro signs: 700 UTF-16 units, 2,100 bytes
  const euros = '\u20ac'.repeat(700);
  const taskEvent = (id: unknown, text: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        kind: 'task',
        id: 't',
        status: { state: 'completed', message: { kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text }] } },
      },
    });

  const ended = remoteAt(s, 'euros', (_m, id) => sseOf(`data: ${taskEvent(id, euros)}\n\n`), { streaming: true });
  t.match(await send(ended), { code: 'bad_response', message: /stream event is larger than 2000 bytes/ }, 'an ended event');
  const unended = remoteAt(s, 'unended', () => sseOf(`data: ${euros}`), { streaming: true });
  t.match(await send(unended), { code: 'bad_response', message: /stream event is larger than 2000 bytes/ }, 'a line still unended');
  const fits = remoteAt(s, 'fits', (_m, id) => sseOf(`data: ${taskEvent(id, '\u20ac'.repeat(400))}\n\n`), { streaming: true });
  t.match(await send(fits), { id: 't', status: { state: 'completed' } }, '1,200 bytes of them fit');

  // two artifacts of 400 euro signs (about 1,300 bytes an event, under the event bound) pile up past the task's bound
  const artifactEvent = (id: unknown, artifactId: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { kind: 'artifact-update', taskId: 't', artifact: { artifactId, parts: [{ kind: 'text', text: '\u20ac'.repeat(400) }] } },
    });
  const statusEvent = (id: unknown, state: string, final: boolean) =>
    JSON.stringify({ jsonrpc: '2.0', id, result: { kind: 'status-update', taskId: 't', status: { state }, final } });
  const grows = remoteAt(
    s,
    'grows',
    (m, id) =>
      m === 'tasks/cancel'
        ? rpc(id, { kind: 'task', id: 't', status: { state: 'canceled' } })
        : sseOf(
            [statusEvent(id, 'working', false), artifactEvent(id, 'a1'), artifactEvent(id, 'a2'), statusEvent(id, 'completed', true)]
              .map((e) => `data: ${e}\n\n`)
              .join(''),
          ),
    { streaming: true },
  );
  t.match(await send(grows), { code: 'bad_response', message: /task grew past 2000 bytes over its message\/stream stream/ });
});

t.test('a stream that ends before its task settles: the rest is polled', async (t) => {
  const s = await cardServer(t);
  const clock = new ManualClock(Date.now());
  const timers = recordingTimers(clock, 10_000);
  const c = testClient({ clock, timers, pollBaseMs: 200, pollMaxMs: 200, random: () => 0.999 });
  t.teardown(() => c.close());
  let gets = 0;
  const task = (state: string) => ({ kind: 'task', id: 'r-1', contextId: 'c-1', status: { state } });
  const endpoint = remoteAt(
    s,
    'cut',
    (method, id) => {
      if (method === 'message/stream') {
        const ev = { jsonrpc: '2.0', id, result: task('working') };
        return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `data: ${JSON.stringify(ev)}\n\n` };
      }
      gets++;
      return rpc(id, task(gets < 2 ? 'working' : 'completed'));
    },
    { streaming: true },
  );
  let done = false;
  const outcome = c.send({ endpoint, message: userMessage('x'), stream: true }).then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );
  void outcome.finally(() => {
    done = true;
  });
  for (let i = 0; i < 2; i++) {
    await until(() => timers.armed > 0, 'a poll to be due');
    clock.advance(timers.waits.at(-1)!);
  }
  await until(() => done, 'the send to end');
  t.match(await outcome, { v: { id: 'r-1', status: { state: 'completed' } } });
  t.equal(gets, 2, 'two polls');
  t.same(
    s.seen.filter((x) => x.path === '/cut/rpc').map((x) => JSON.parse(x.body).method),
    ['message/stream', 'tasks/get', 'tasks/get'],
  );
});

t.test('a remote that is not there is unreachable', async (t) => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const c = testClient();
  t.teardown(() => c.close());
  t.match(await c.discover(none(`http://127.0.0.1:${port}/x`)).catch((e: unknown) => e), { code: 'unreachable', message: /ECONNREFUSED/ });
});

t.test('a poll answered "not now" (429, 502, 503, 504) is made again; five in a row fail the call', async (t) => {
  const s = await cardServer(t);
  const clock = new ManualClock(Date.now());
  const timers = recordingTimers(clock, 10_000);
  const c = testClient({ clock, timers, pollBaseMs: 200, pollMaxMs: 200, random: () => 0.999 });
  t.teardown(() => c.close());
  const task = (state: string) => ({ kind: 'task', id: 'r-1', contextId: 'c-1', status: { state } });
  /** what each poll is answered, in turn: a status, or the task completed */
  let polls: Array<number | 'done'> = [];
  const endpoint = remoteAt(s, 'busy', (method, id) => {
    if (method === 'message/send') return rpc(id, task('working'));
    const next = polls.shift() ?? 'done';
    if (next === 'done') return rpc(id, task('completed'));
    return next === 502 ? { status: 502, body: '<html>bad gateway</html>' } : { status: next, body: { error: 'busy' } };
  });
  const run = () => settlePolled(clock, timers, c.send({ endpoint, message: userMessage('x') }));
  const gets = () => s.seen.filter((x) => x.path === '/busy/rpc' && JSON.parse(x.body).method === 'tasks/get').length;

  polls = [503, 502, 429, 504];
  t.match(await run(), { v: { id: 'r-1', status: { state: 'completed' } } }, 'completed after four passing failures');
  t.equal(gets(), 5);

  polls = [503, 503, 503, 503, 503];
  const before = gets();
  t.match(await run(), { e: { code: 'bad_response', message: 'the remote answered tasks/get with HTTP 503' } });
  t.equal(gets() - before, 5, 'five polls, then the failure stands');

  // anything else is not retried: a 500 fails the call at once
  polls = [500];
  const before500 = gets();
  t.match(await run(), { e: { code: 'bad_response', message: 'the remote answered tasks/get with HTTP 500' } });
  t.equal(gets() - before500, 1);
});
