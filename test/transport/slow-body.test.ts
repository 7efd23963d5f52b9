// Slow and idle clients at the uWS front: a request body must arrive whole within bodyTimeoutMs of its headers (408,
// connection closed, on the injected clock); uWS itself closes connections that send nothing or trickle their headers.
import { connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { until } from '../support/a2a-client.js';

const TIMEOUT = 30_000;

/** A raw connection: everything it has received, and whether the server closed it. */
interface Raw {
  s: Socket;
  got(): string;
  closed(): boolean;
}
function rawConnect(gw: TestGateway): Promise<Raw> {
  return new Promise((resolve) => {
    let got = '';
    let closed = false;
    const s = connect(Number(new URL(gw.url).port), '127.0.0.1', () => resolve({ s, got: () => got, closed: () => closed }));
    s.on('data', (d) => {
      got += d.toString();
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      closed = true;
    });
  });
}
const head = (o: { path?: string; length: number; extra?: string }) =>
  `POST ${o.path ?? '/api/a2a'} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${o.length}\r\n${o.extra ?? ''}\r\n`;

/** A full round trip on another connection: whatever the server was going to write on `raw` by now is there. */
const roundTrip = async (gw: TestGateway) => void (await fetch(`${gw.url}/healthz`)).text();

async function setup(t: Test) {
  const clock = new ManualClock(Date.now());
  const gw = await startTestGateway({ clock, timers: clock });
  t.teardown(() => gw.close());
  // what the first request arms once is armed now, and the background work that re-arms its own timers once it is
  // done (the webhook worker's first look at the store, the retention sweep) has settled, so `pending` counts the
  // body deadline alone
  await roundTrip(gw);
  await Promise.all([gw.gw.push.idle(), gw.gw.retention.idle(), gw.gw.usage.idle(), gw.gw.deliveries.idle()]);
  return { gw, clock };
}

/** Waits until the server armed the body deadline of a request it got the headers of (one more timer than before). */
const armed = (clock: ManualClock, before: number) => until(() => clock.pending > before, 'the body deadline is armed');

t.test('a body trickled one byte per second is answered 408 at bodyTimeoutMs, and the connection is closed', async (t) => {
  const { gw, clock } = await setup(t);
  const before = clock.pending;
  const raw = await rawConnect(gw);
  raw.s.write(head({ length: 100 }));
  await armed(clock, before);
  for (let i = 0; i < TIMEOUT / 1000 - 1; i++) {
    raw.s.write(' ');
    clock.advance(1000);
  }
  await roundTrip(gw);
  t.equal(raw.got(), '', 'nothing yet a moment before the deadline');
  clock.advance(1000);
  await until(() => raw.closed(), 'the server closes the connection');
  const [status, body] = [raw.got().split('\r\n')[0], raw.got().split('\r\n\r\n')[1]!];
  t.equal(status, 'HTTP/1.1 408 Request Timeout');
  const json = JSON.parse(body);
  t.equal(json.error.code, -32600);
  t.equal(json.error.data.reason, 'REQUEST_TIMEOUT');
  t.equal(json.error.data.limitMs, TIMEOUT);
  t.match(json.error.message, /did not arrive within 30000 ms \(bodyTimeoutMs\)/);
});

t.test('a body that never finishes is answered 408 (the admin API too)', async (t) => {
  const { gw, clock } = await setup(t);
  for (const path of ['/api/a2a', '/api/admin/keys']) {
    const before = clock.pending;
    const raw = await rawConnect(gw);
    raw.s.write(`${head({ path, length: 1000 })}{"jsonrpc":`);
    await armed(clock, before);
    clock.advance(TIMEOUT);
    await until(() => raw.closed(), `${path}: the server closes the connection`);
    t.match(raw.got(), /^HTTP\/1\.1 408 Request Timeout\r\n/, path);
  }
});

t.test('a body that arrived in time leaves nothing armed: the connection serves its next request later', async (t) => {
  const { gw, clock } = await setup(t);
  const raw = await rawConnect(gw);
  const body = '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}';
  // a first call arms what any call arms once (e.g. the limiter's timers); the second must arm nothing lasting
  await gw.rpc({ body });
  const before = clock.pending;
  raw.s.write(head({ length: body.length }) + body);
  await until(() => raw.got().includes('"id":1'), 'the first answer');
  t.equal(clock.pending, before, 'the deadline was cancelled');
  clock.advance(TIMEOUT * 2);
  raw.s.write(head({ length: body.length }) + body.replace('"id":1', '"id":2'));
  await until(() => raw.got().includes('"id":2'), 'the second answer');
  t.notMatch(raw.got(), /408/);
  t.equal(raw.closed(), false);
});

t.test('a client gone mid-body takes its deadline (and what it sent) with it', async (t) => {
  const { gw, clock } = await setup(t);
  const before = clock.pending;
  const raw = await rawConnect(gw);
  raw.s.write(`${head({ length: 1000 })}{"jsonrpc":`);
  await armed(clock, before);
  await roundTrip(gw);
  const withDeadline = clock.pending;
  raw.s.destroy();
  await until(() => clock.pending === withDeadline - 1, 'the deadline is cancelled once the client is gone');
  t.pass();
});

t.test("uWS's own idle timeout closes connections that send nothing or trickle their headers (about 10 s, real time)", async (t) => {
  const { gw } = await setup(t);
  const idle = await rawConnect(gw);
  const trickle = await rawConnect(gw);
  const h = `${head({ length: 2 })}{}`;
  let k = 0;
  const timer = setInterval(() => {
    if (!trickle.closed() && k < h.length) trickle.s.write(h[k++]!);
  }, 500);
  t.teardown(() => clearInterval(timer));
  await until(() => idle.closed() && trickle.closed(), 'uWS closes both', 20_000);
  t.equal(idle.got(), '', 'closed without an answer');
  t.equal(trickle.got(), '', 'closed without an answer, headers never completed');
});
