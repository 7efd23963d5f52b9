// Errors the uWS front answers before the gateway reads the call (400 bad Host, 408 body timeout, 413 too large) read
// in A2A 1.0's shape (ErrorInfo list in `data`) when the request named 1.0 (header or ?A2A-Version=), as every other
// error of such a request does; without it, in the revisions' shape.
import { connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { until } from '../support/a2a-client.js';

const V1 = { 'A2A-Version': '1.0' };
const BODY = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}';

/** A raw connection (fetch sends no arbitrary Host and no half a body): what it got, and whether it was closed. */
function rawConnect(gw: TestGateway): Promise<{ s: Socket; got(): string; closed(): boolean }> {
  return new Promise((resolve) => {
    let got = '';
    let closed = false;
    const s = connect(Number(new URL(gw.url).port), '127.0.0.1', () => resolve({ s, got: () => got, closed: () => closed }));
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => (closed = true));
  });
}
const head = (o: { path?: string; host?: string; length: number; headers?: Record<string, string> }) =>
  `POST ${o.path ?? '/api/a2a'} HTTP/1.1\r\nHost: ${o.host ?? 'x'}\r\nContent-Type: application/json\r\nContent-Length: ${o.length}\r\n` +
  `${Object.entries(o.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;
const answer = (raw: string) => ({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(raw)?.[1]), json: JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) });

/** 1.0's shape: code kept, `data` a list whose first entry is the ErrorInfo naming the reason. */
function isV1(t: Test, json: any, reason: string, what: string) {
  t.ok(Array.isArray(json.error?.data), `${what}: data is 1.0's list`);
  t.equal(json.error?.data?.[0]?.['@type'], 'type.googleapis.com/google.rpc.ErrorInfo', `${what}: an ErrorInfo`);
  t.equal(json.error?.data?.[0]?.reason, reason, what);
  t.equal(json.error?.code, -32600, what);
}

t.test('413: 1.0 shape when the request named 1.0', async (t) => {
  const gw = await startTestGateway({ config: { maxBodyBytes: 1024 } });
  t.teardown(() => gw.close());
  const big = `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"${'x'.repeat(2000)}"}}`;
  const v1 = await gw.rpc({ body: big, headers: V1 });
  t.equal(v1.status, 413);
  isV1(t, v1.json, 'PAYLOAD_TOO_LARGE', 'header');
  t.equal(v1.json.error.data[0].metadata.limit, '1024');
  const query = await gw.rpc({ body: big, path: '/api/a2a?A2A-Version=1.0' });
  isV1(t, query.json, 'PAYLOAD_TOO_LARGE', '?A2A-Version=1.0');
  const old = await gw.rpc({ body: big });
  t.equal(old.status, 413);
  t.equal(old.json.error?.data?.reason, 'PAYLOAD_TOO_LARGE', 'no version named: the revisions’ shape');
});

t.test('400 bad Host: 1.0 shape when the request named 1.0', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const send = async (headers: Record<string, string>) => {
    const raw = await rawConnect(gw);
    raw.s.write(head({ host: 'a b', length: BODY.length, headers }) + BODY);
    await until(() => raw.closed(), 'the answer');
    return answer(raw.got());
  };
  const v1 = await send(V1);
  t.equal(v1.status, 400);
  isV1(t, v1.json, 'BAD_HOST', 'header');
  t.equal(v1.json.error.data[0].metadata.header, 'Host');
  const old = await send({});
  t.equal(old.status, 400);
  t.equal(old.json.error?.data?.reason, 'BAD_HOST', 'no version named: the revisions’ shape');
});

t.test('408 body timeout: 1.0 shape when the request named 1.0', async (t) => {
  const clock = new ManualClock(Date.now());
  const gw = await startTestGateway({ clock, timers: clock });
  t.teardown(() => gw.close());
  await gw.rpc({ body: BODY });
  await Promise.all([gw.gw.push.idle(), gw.gw.retention.idle(), gw.gw.usage.idle(), gw.gw.deliveries.idle()]);
  const stall = async (headers: Record<string, string>) => {
    const before = clock.pending;
    const raw = await rawConnect(gw);
    raw.s.write(`${head({ length: 1000, headers })}{"jsonrpc":`);
    await until(() => clock.pending > before, 'the body deadline is armed');
    clock.advance(30_000);
    await until(() => raw.closed(), 'the server closes the connection');
    return answer(raw.got());
  };
  const v1 = await stall(V1);
  t.equal(v1.status, 408);
  isV1(t, v1.json, 'REQUEST_TIMEOUT', 'header');
  const old = await stall({});
  t.equal(old.status, 408);
  t.equal(old.json.error?.data?.reason, 'REQUEST_TIMEOUT', 'no version named: the revisions’ shape');
});
