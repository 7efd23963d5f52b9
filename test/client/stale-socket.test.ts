// A kept-alive socket the server closes just as the client reuses it (the server's idle timeout and the next request
// cross): a card read (a health check) is sent again on a new socket instead of reporting the agent unreachable.
import { createServer, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { testClient } from '../support/a2a-client.js';

const card = JSON.stringify({
  name: 'flaky-socket',
  description: 'resets a reused socket',
  url: 'http://127.0.0.1/api/a2a',
  version: '1',
  protocolVersion: '0.3.0',
  capabilities: { streaming: false },
  skills: [],
});

t.test('a card read on a socket the server reset is sent again once, on a new socket', async (t) => {
  let connections = 0;
  let answered = 0;
  // every connection answers its first request (kept alive) and resets on its second, as a server whose idle timeout
  // fired just as that request arrived would
  const server = createServer((sock: Socket) => {
    connections++;
    let requests = 0;
    sock.on('data', (d) => {
      if (!d.toString('latin1').includes('\r\n\r\n')) return;
      requests++;
      if (requests > 1) return void sock.resetAndDestroy();
      answered++;
      sock.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(card)}\r\nConnection: keep-alive\r\n\r\n${card}`);
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as { port: number }).port;
  const endpoint: RemoteEndpoint = { url: `http://127.0.0.1:${port}/api/a2a`, credentials: { kind: 'none' } };
  const c = testClient({});
  t.teardown(() => c.close());

  const first = await c.discover(endpoint, { fresh: true });
  t.equal(first.card.name, 'flaky-socket');
  // the second read goes out on the kept-alive socket, which the server resets
  const second = await c.discover(endpoint, { fresh: true });
  t.equal(second.card.name, 'flaky-socket', 'the read succeeds: it was sent again');
  t.equal(answered, 2, 'the server answered both reads');
  t.equal(connections, 2, 'the retry went out on a new socket');
});

/** A server that keeps every socket open (it never closes an idle one) and announces `hint` as its keep-alive timeout. */
async function holdingServer(t: Test, hint: string | undefined) {
  const closed: number[] = [];
  let opened = 0;
  const open = new Set<Socket>();
  const server = createServer((sock: Socket) => {
    opened++;
    open.add(sock);
    let answeredAt = 0;
    sock.on('data', (d) => {
      if (!d.toString('latin1').includes('\r\n\r\n')) return;
      answeredAt = Date.now();
      sock.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(card)}\r\nConnection: keep-alive\r\n` +
          `${hint ? `Keep-Alive: ${hint}\r\n` : ''}\r\n${card}`,
      );
    });
    sock.on('close', () => {
      open.delete(sock);
      closed.push(Date.now() - answeredAt);
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const sock of open) sock.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as { port: number }).port;
  return { endpoint: { url: `http://127.0.0.1:${port}/api/a2a`, credentials: { kind: 'none' } } as RemoteEndpoint, closed, opened: () => opened };
}

const untilClosed = async (closed: number[], withinMs: number) => {
  const deadline = Date.now() + withinMs;
  while (closed.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return closed[0];
};

t.test('an idle kept-alive socket is given up before the server says it would close it', async (t) => {
  // "timeout=2": the server would close an idle socket after 2 s; the client must leave it first, so that no request
  // is ever sent on a socket the server is closing (a POST there fails with "socket hang up" and is not sent again)
  const s = await holdingServer(t, 'timeout=2');
  const c = testClient({});
  t.teardown(() => c.close());
  await c.discover(s.endpoint, { fresh: true });
  // waits on the client's own close (about 1 s: Node's one-second margin under the hint), bounded well past 2 s
  const idleFor = await untilClosed(s.closed, 4_000);
  t.ok(idleFor !== undefined, 'the client closed the idle socket by itself');
  t.ok(idleFor !== undefined && idleFor < 2_000, `within the server's announced 2 s (closed after ${idleFor} ms idle)`);
  await c.discover(s.endpoint, { fresh: true });
  t.equal(s.opened(), 2, 'the next call opens a new socket');
});
