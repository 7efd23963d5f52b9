// Remotes that answer oddly but readably, or oddly enough to be refused clearly, by real node:http servers on loopback:
// JSON opening with a UTF-8 byte order mark (RFC 8259 lets a reader ignore it; some servers write one), and response
// heads past Node's header limit.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { cardServer } from '../support/card-server.js';

const BOM = '\uFEFF';
const none = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'none' } });

t.test('a card and an answer that open with a byte order mark are read', async (t) => {
  const s = await cardServer(t);
  const c = testClient();
  t.teardown(() => c.close());
  const card = { name: 'bom', description: '', url: `${s.url}/bom/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: {} };
  s.route.set('/bom/.well-known/agent-card.json', () => ({ status: 200, body: BOM + JSON.stringify(card) }));
  s.route.set('/bom/rpc', (_h, body) => ({
    status: 200,
    body: BOM + JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: { kind: 'task', id: 't1', status: { state: 'completed' } } }),
  }));
  t.equal((await c.discover(none(`${s.url}/bom`))).card.name, 'bom');
  const task = await c.send({ endpoint: none(`${s.url}/bom`), message: userMessage('x') });
  t.equal(task.status.state, 'completed');
  t.equal(task.id, 't1');
});

t.test('a response head past the header limit is a bad response saying so, not an unreachable remote', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-filler': 'f'.repeat(64 * 1024) });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const c = testClient();
  t.teardown(() => c.close());
  const err = await c.discover(none(`http://127.0.0.1:${(server.address() as AddressInfo).port}/big`)).catch((e: unknown) => e);
  t.match(err, { code: 'bad_response', message: /^the response head from http:\/\/127\.0\.0\.1:\d+ is larger than \d+ bytes$/ });
});

t.test('an answer that is not HTTP is a bad response saying so', async (t) => {
  const { createServer: createTcp } = await import('node:net');
  const server = createTcp((sock) => sock.end('HELLO THERE\r\n\r\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.close();
  });
  const c = testClient();
  t.teardown(() => c.close());
  const err = await c.discover(none(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`)).catch((e: unknown) => e);
  t.match(err, { code: 'bad_response', message: /is not valid HTTP \(HPE_/ });
});

t.test('an OAuth token that cannot be sent as a header is token_failed naming it; the remote sees no call', async (t) => {
  const s = await cardServer(t);
  const c = testClient();
  t.teardown(() => c.close());
  const card = { name: 'o', description: '', url: `${s.url}/o/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: {} };
  s.route.set('/o/.well-known/agent-card.json', () => ({ status: 200, body: card }));
  s.route.set('/token', () => ({ status: 200, body: { access_token: 'abc\r\nX-Injected: 1', token_type: 'Bearer', expires_in: 3600 } }));
  const endpoint: RemoteEndpoint = { url: `${s.url}/o`, credentials: { kind: 'oauth', tokenUrl: `${s.url}/token`, clientId: 'id', clientSecret: 'secret' } };
  t.match(await c.discover(endpoint).catch((e: unknown) => e), {
    code: 'token_failed',
    message: "the OAuth token endpoint's answer is not a token: access_token: must be printable ASCII: it is sent as an HTTP header",
  });
  t.same(
    s.seen.map((q) => q.path),
    ['/token'],
    'only the token endpoint was asked',
  );
});

t.test('a call that cannot even be made (a stored token Node refuses as a header) leaves no timer or listener behind', async (t) => {
  const s = await cardServer(t);
  const clock = new ManualClock(Date.now());
  let armed = 0;
  const timers = {
    after(ms: number, fn: () => void) {
      armed++;
      let live = true;
      const cancel = clock.after(ms, () => {
        if (live) armed--;
        live = false;
        fn();
      });
      return () => {
        if (live) armed--;
        live = false;
        cancel();
      };
    },
  };
  const c = testClient({ clock, timers });
  t.teardown(() => c.close());
  const card = { name: 'h', description: '', url: `${s.url}/h/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: {} };
  s.route.set('/h/.well-known/agent-card.json', () => ({ status: 200, body: card }));
  // stored before tokens were checked at add (connections read stored credentials as they are)
  const endpoint: RemoteEndpoint = { url: `${s.url}/h`, credentials: { kind: 'bearer', token: 'two\nlines' } };
  const ctl = new AbortController();
  const err = await c.send({ endpoint, message: userMessage('x'), signal: ctl.signal }).catch((e: unknown) => e);
  t.match(err, { name: 'OutboundError', message: /Invalid character in header content \["authorization"\]/ });
  t.equal(armed, 0, 'every deadline timer was cancelled');
  t.same(s.seen, [], 'nothing was sent');
});
