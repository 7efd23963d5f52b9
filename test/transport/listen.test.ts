// A gateway that took "any free port" (port 0) and served connections it closed itself can be restarted on that same
// port at once: its closed connections' TIME-WAIT (a minute on Linux) does not hold the port (the listening socket
// has SO_REUSEADDR because the port is chosen before uWS listens).
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

/** GET with `Connection: close`: the gateway closes the connection after answering, so the TIME-WAIT is on its side. */
const getAndClose = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

/** Connections in TIME-WAIT whose local end is 127.0.0.1:`port` (Linux's /proc/net/tcp: state 06). */
const timeWaits = (port: number): number =>
  readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1] === `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}` && f[3] === '06').length;

t.test('a gateway on port 0, restarted on the port it got, listens again at once', async (t) => {
  const first = await startTestGateway();
  const port = Number(new URL(first.url).port);
  t.ok(port > 0, `a port was chosen: ${port}`);
  for (let i = 0; i < 3; i++) t.equal(await getAndClose(first.url), 200);
  await first.close();
  if (existsSync('/proc/net/tcp')) t.ok(timeWaits(port) > 0, 'the closed connections sit in TIME-WAIT on the port');

  const again = await startTestGateway({ config: { port } });
  t.teardown(() => again.close());
  t.equal(Number(new URL(again.url).port), port, 'the same port');
  t.equal(await getAndClose(again.url), 200, 'and it serves');
});
