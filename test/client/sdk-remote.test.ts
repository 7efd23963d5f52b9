// The A2A client against the official @a2a-js/sdk 0.3 server (real express server on loopback): rev B read from its
// card, a blocking send, SSE, an API-key check in front of it, kept-alive sockets, and no internal field in what leaves.
import t from 'tap';
import { INTERNAL_FIELDS } from '../../src/protocol/internal-fields.js';
import type { RemoteEndpoint, RemoteEvent } from '../../src/runtime/a2a-client/types.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { requireHeader, startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

async function remote(t: { teardown(fn: () => unknown): void }, o: Parameters<typeof startSdkRemote>[0] = {}): Promise<SdkRemote> {
  const r = await startSdkRemote(o);
  t.teardown(() => r.close());
  return r;
}
const open = (r: SdkRemote): RemoteEndpoint => ({ url: r.url, credentials: { kind: 'none' } });

t.test('rev B from the SDK card; a blocking message/send answered with the settled task', async (t) => {
  const r = await remote(t);
  const c = testClient();
  t.teardown(() => c.close());
  const d = await c.discover(open(r));
  t.equal(d.dialect, 'B');
  t.equal(d.card.name, 'sdk-echo');
  t.equal(d.card.url, r.url);
  const task = await c.send({ endpoint: open(r), message: userMessage('hello sdk') });
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts, [{ artifactId: 'echo', index: 0, parts: [{ kind: 'text', text: 'hello sdk' }] }]);
  t.match(task.status.message, { role: 'agent', parts: [{ kind: 'text', text: 'echoed: hello sdk' }] });
  const sent = r.calls('message/send');
  t.equal(sent.length, 1);
  t.match(sent[0]!.json.params, {
    message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hello sdk' }] },
    configuration: { blocking: true },
  });
  t.equal(sent[0]!.headers['a2a-version'], '0.3');
  const got = await c.get({ endpoint: open(r), taskId: task.id });
  t.equal(got.status.state, 'completed', 'tasks/get reads it back');
});

t.test('streaming over SSE (message/stream): the task, working, the artifact, completed (final), as they come', async (t) => {
  const r = await remote(t);
  const c = testClient();
  t.teardown(() => c.close());
  const events: RemoteEvent[] = [];
  const task = await c.send({ endpoint: open(r), message: userMessage('stream me'), stream: true, onEvent: (e) => events.push(e) });
  t.same(
    events.map((e) => (e.kind === 'status' ? `status ${e.status.state}${e.final ? ' final' : ''}` : e.kind)),
    ['task', 'status working', 'artifact', 'status completed final'],
  );
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts[0]?.parts, [{ kind: 'text', text: 'stream me' }]);
  t.equal(r.calls('message/stream').length, 1);
  t.equal(r.calls('message/send').length, 0);
});

t.test('a card without streaming: a streaming send falls back to the blocking answer', async (t) => {
  const r = await remote(t, { streaming: false });
  const c = testClient();
  t.teardown(() => c.close());
  const task = await c.send({ endpoint: open(r), message: userMessage('no sse'), stream: true });
  t.equal(task.status.state, 'completed');
  t.equal(r.calls('message/stream').length, 0);
  t.equal(r.calls('message/send').length, 1);
});

t.test('an API-key check in front of the remote: the named header gets through, a wrong key is unauthorized', async (t) => {
  const r = await remote(t, { before: [requireHeader('x-api-key', 'k-right-123')] });
  const c = testClient();
  t.teardown(() => c.close());
  const good: RemoteEndpoint = { url: r.url, credentials: { kind: 'apikey', header: 'X-API-Key', value: 'k-right-123' } };
  const task = await c.send({ endpoint: good, message: userMessage('with key') });
  t.equal(task.status.state, 'completed');
  t.ok(
    r.requests.every((q) => q.headers['x-api-key'] === 'k-right-123'),
    'the card fetch and the call both carried the key',
  );
  const bad: RemoteEndpoint = { url: r.url, credentials: { kind: 'apikey', header: 'X-API-Key', value: 'k-wrong' } };
  const before = r.requests.length;
  const err = await c.send({ endpoint: bad, message: userMessage('x') }).catch((e: unknown) => e);
  t.match(err, { code: 'unauthorized' });
  t.notMatch((err as Error).message, /k-wrong/);
  await r.answered();
  t.same(
    r.requests.slice(before).map((q) => q.status),
    [401],
    'the card was refused, nothing else was asked',
  );
});

t.test('a busy endpoint reuses its kept-alive socket', async (t) => {
  const r = await remote(t);
  const c = testClient();
  t.teardown(() => c.close());
  for (let i = 0; i < 5; i++) await c.send({ endpoint: open(r), message: userMessage(`n${i}`) });
  const ports = new Set(r.requests.map((q) => q.port));
  t.equal(r.requests.length, 6, 'one card fetch, five sends');
  t.equal(ports.size, 1, 'all on one socket');
  c.forget(open(r));
  await c.send({ endpoint: open(r), message: userMessage('after forget') });
  t.equal(r.cardFetches().length, 2, 'forget drops the cached card');
  t.equal(new Set(r.requests.map((q) => q.port)).size, 2, 'and the sockets');
});

t.test('internal metadata never reaches the remote, at any depth', async (t) => {
  const r = await remote(t);
  const c = testClient();
  t.teardown(() => c.close());
  const internal = Object.fromEntries([...INTERNAL_FIELDS].map((k) => [k, `leak-${k}`]));
  const message = userMessage('', {
    parts: [
      { kind: 'text', text: 'look', metadata: { ...internal, fine: 'part' } },
      { kind: 'data', data: { ok: 1, nested: { deeper: [internal] } } },
    ],
    metadata: { lang: 'en', ...internal, nested: { list: [{ keep: true, ...internal }] } },
  });
  for (const stream of [false, true]) await c.send({ endpoint: open(r), message, stream });
  const bodies = r.calls().map((q) => q.body);
  t.equal(bodies.length, 2);
  for (const body of bodies) {
    for (const k of INTERNAL_FIELDS) t.notOk(body.includes(k), `no ${k} in ${JSON.parse(body).method}`);
    t.notOk(body.includes('leak-'));
  }
  const sent = r.calls('message/send')[0]!.json.params.message;
  t.same(sent.metadata, { lang: 'en', nested: { list: [{ keep: true }] } }, 'the rest of the metadata went as it was');
  t.same(sent.parts[0].metadata, { fine: 'part' });
  t.same(sent.parts[1].data, { ok: 1, nested: { deeper: [{}] } });
});

t.test('many calls in flight to one remote reuse their sockets: a second wave opens none', async (t) => {
  const r = await startSdkRemote({ streaming: false });
  t.teardown(() => r.close());
  const c = testClient();
  t.teardown(() => c.close());
  const wave = () => Promise.all(Array.from({ length: 40 }, (_, i) => c.send({ endpoint: open(r), message: userMessage(`w${i}`) })));
  const first = await wave();
  t.ok(
    first.every((task) => task.status.state === 'completed'),
    'the first wave completes',
  );
  const portsAfterFirst = new Set(r.calls('message/send').map((q) => q.port)).size;
  await wave();
  const ports = new Set(r.calls('message/send').map((q) => q.port)).size;
  t.equal(r.calls('message/send').length, 80, 'both waves reached the remote');
  // a pool smaller than the calls in flight would close the surplus after the first wave and connect anew
  t.equal(ports, portsAfterFirst, `the second wave went out on the first wave's ${portsAfterFirst} sockets`);
});
