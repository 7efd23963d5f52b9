// A header the JSON-RPC route reads as one value (Authorization, A2A-Version, Last-Event-ID, Content-Length, Host,
// X-Request-Id) given on two lines is refused with 400 (-32600, `data.header`), nothing runs, and the connection is
// closed. uWS reads the first line: with "Authorization: <bad>" then "Authorization: <good>" a proxy or log reading
// the last saw one caller while the gateway served another; two Content-Length lines left the body's end in doubt.
import t from 'tap';
import { rawExchange } from '../support/raw-http.js';
import { startTestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

/** One raw HTTP/1.1 exchange with the header lines as given (fetch joins repeated ones): status, JSON body, closed. */
function raw(port: number, o: { lines: string[]; body: string; contentLength?: boolean }) {
  const length = o.contentLength === false ? [] : [`Content-Length: ${Buffer.byteLength(o.body)}`];
  const head = ['POST /api/a2a HTTP/1.1', 'Host: 127.0.0.1', ...o.lines, ...length, '', ''].join('\r\n');
  // no `Connection: close` is sent: the answer must close the connection by itself
  return rawExchange(port, head + o.body);
}

t.test('a single-valued header on two lines is 400 naming it; nothing runs; the connection is closed', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const auth = `Authorization: Bearer ${key}`;
  const send = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: 'm-twice', parts: [{ kind: 'text', text: 'x' }] } },
  });
  const before = await storedTasks(gw);
  const cases = [
    { header: 'Authorization', lines: ['Authorization: Bearer nope', auth] },
    { header: 'Authorization', lines: [auth, auth] },
    { header: 'A2A-Version', lines: [auth, 'A2A-Version: 0.3', 'A2A-Version: 1.0'] },
    { header: 'Last-Event-ID', lines: [auth, 'Last-Event-ID: 1', 'Last-Event-ID: 2'] },
    { header: 'Host', lines: [auth, 'Host: evil.example'] },
    { header: 'X-Request-Id', lines: [auth, 'X-Request-Id: a', 'X-Request-Id: b'] },
    { header: 'Content-Length', lines: [auth, `Content-Length: ${send.length}`] },
  ];
  for (const c of cases) {
    const r = await raw(gw.gw.port, { lines: c.lines, body: send });
    t.equal(r.status, 400, `${c.header} twice: 400`);
    t.match(r.json, { jsonrpc: '2.0', id: null, error: { code: -32600, data: { reason: 'REPEATED_HEADER', header: c.header } } }, `naming ${c.header}`);
    t.match(r.json?.error?.message, new RegExp(`the ${c.header} header is given more than once`));
  }
  t.same(await storedTasks(gw), before, 'nothing ran');

  const v1 = await raw(gw.gw.port, { lines: [auth, 'A2A-Version: 1.0', 'Authorization: Bearer x'], body: send });
  t.equal(v1.json?.error?.data?.[0]?.reason, 'REPEATED_HEADER', "under A2A-Version: 1.0, in 1.0's shape");
  t.equal(v1.json?.error?.data?.[0]?.metadata?.header, 'Authorization');

  const once = await raw(gw.gw.port, {
    lines: [auth, 'A2A-Version: 0.3', 'Accept: application/json', 'Accept: text/event-stream', 'Connection: close'],
    body: send,
  });
  t.equal(once.json?.result?.status?.state, 'completed', 'each read header once (and other headers repeated) is served');
});
