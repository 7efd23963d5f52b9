// A 413 on the admin routes whose body was not read to its end closes the connection, as on /api/a2a: otherwise the
// unread rest of the body, and whatever a client pipelined behind it, would be parsed as the connection's next
// requests. A body that was read (and dropped) to its end leaves the connection usable. Real gateway on port 0, raw
// sockets.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { until } from '../support/a2a-client.js';
import { startTestGateway } from '../support/gateway.js';

interface Raw {
  sock: Socket;
  out: () => string;
  closed: () => boolean;
}

function open(port: number): Raw {
  const sock = connect(port, '127.0.0.1');
  let out = '';
  let closed = false;
  sock.on('data', (d) => (out += d.toString()));
  sock.on('error', () => undefined);
  sock.on('close', () => (closed = true));
  return { sock, out: () => out, closed: () => closed };
}

t.test('admin 413: closed when the body was not read to its end, usable when it was', async (t) => {
  const tg = await startTestGateway({ config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const port = Number(new URL(tg.url).port);
  const head = (length: number) =>
    `POST /api/admin/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  // 64 MiB announced: far past what is ever read, so the answer comes at once and the body stays unread
  const huge = open(port);
  t.teardown(() => huge.sock.destroy());
  huge.sock.write(`${head(64 * 1024 * 1024)}{"name":"${'x'.repeat(1000)}`);
  await until(() => huge.out().includes('\r\n\r\n'), 'the 413 arrives');
  t.match(huge.out(), /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  t.match(huge.out(), /\r\nConnection: close\r\n/i, 'the 413 says the connection closes');
  await until(() => huge.closed(), 'the server closes the connection');

  // the same on /api/a2a, which the admin routes now match
  const rpc = open(port);
  t.teardown(() => rpc.sock.destroy());
  rpc.sock.write(`POST /api/a2a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{`);
  await until(() => rpc.closed(), '/api/a2a closes it too');
  t.match(rpc.out(), /^HTTP\/1\.1 413 /);

  // past the admin limit but read to its end: 413, and the request pipelined behind it is answered on the same socket
  const drained = open(port);
  t.teardown(() => drained.sock.destroy());
  const body = `{"name":"${'x'.repeat(300 * 1024)}"}`;
  drained.sock.write(`${head(body.length)}${body}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await until(() => /HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n/.test(drained.out()), 'the pipelined request is answered');
  t.match(drained.out(), /^HTTP\/1\.1 413 /, 'the over-size body first gets its 413');
  t.notOk(drained.closed(), 'and the connection stays open');
});
