// A JSON-RPC body must be UTF-8 (RFC 8259 §8.1). One in UTF-16 or UTF-32 (PowerShell's `-Encoding Unicode`, .NET's
// Encoding.Unicode) is -32700 saying which encoding it is, not a bare "not valid JSON"; a UTF-8 byte order mark is
// dropped (RFC 8259 lets a parser ignore it), and the Content-Type's charset is not read (the body's bytes decide).
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

const BODY = '{"jsonrpc":"2.0","id":1,"method":"agents/list"}';
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
const utf32le = (s: string) => Buffer.concat([...s].map((c) => Buffer.from([c.charCodeAt(0), 0, 0, 0])));

t.test('a body in UTF-16 or UTF-32 is -32700 naming its encoding; UTF-8 with a BOM is served', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const post = (body: Buffer, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/api/a2a`, { method: 'POST', body: new Uint8Array(body), headers: { Authorization: `Bearer ${key}`, ...headers } }).then(async (r) => ({
      status: r.status,
      json: await r.json(),
    }));
  const cases: Array<[string, Buffer]> = [
    ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(BODY, 'utf16le')])],
    ['UTF-16LE', Buffer.from(BODY, 'utf16le')],
    ['UTF-16BE', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(BODY)])],
    ['UTF-16BE', utf16be(BODY)],
    ['UTF-32LE', utf32le(BODY)],
  ];
  for (const [encoding, body] of cases) {
    const r = await post(body, { 'Content-Type': 'application/json; charset=utf-16' });
    t.equal(r.json.error?.code, -32700, `${encoding}${body[0] === 0xff || body[0] === 0xfe ? ' with its BOM' : ''}: -32700`);
    t.match(r.json.error?.message, new RegExp(`request body is ${encoding}, not UTF-8`), 'saying which encoding it is');
    t.equal(r.json.error?.data?.encoding, encoding);
  }
  const v1 = await post(Buffer.from(BODY, 'utf16le'), { 'A2A-Version': '1.0' });
  t.equal(v1.json.error?.data?.[0]?.metadata?.encoding, 'UTF-16LE', "1.0's shape under A2A-Version: 1.0");

  const bom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BODY)]));
  t.ok(bom.json.result?.agents, 'UTF-8 with a byte order mark is served');
  const charset = await post(Buffer.from(BODY), { 'Content-Type': 'text/plain; charset=utf-16' });
  t.ok(charset.json.result?.agents, "UTF-8 labelled UTF-16 is served: the bytes decide, not the header's charset");
  const latin1 = await post(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"agents/list","params":{"x":"caf\u00e9"}}', 'latin1'));
  t.match(latin1.json.error?.message, /not valid UTF-8$/, 'Latin-1 is not valid UTF-8, as before');
});

// The gateway does not decode content codings: a gzip body read "not valid UTF-8", and a plain body labelled gzip was
// run as plain (a firewall in front that failed to decompress it may have let it through uninspected).
t.test('a body with a Content-Encoding other than identity is 415 naming it; nothing runs', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send =
    '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-enc","parts":[{"kind":"text","text":"x"}]}}}';
  const post = (body: Buffer, headers: Record<string, string>) =>
    fetch(`${gw.url}/api/a2a`, { method: 'POST', body: new Uint8Array(body), headers: { Authorization: `Bearer ${key}`, ...headers } }).then(async (r) => ({
      status: r.status,
      json: await r.json(),
    }));
  for (const [encoding, body] of [
    ['gzip', gzipSync(send)],
    ['gzip', Buffer.from(send)],
    ['br', Buffer.from(send)],
    ['GZIP, identity', Buffer.from(send)],
  ] as const) {
    const r = await post(body, { 'Content-Encoding': encoding });
    t.equal(r.status, 415, `Content-Encoding ${encoding}: 415`);
    t.match(r.json, { id: null, error: { code: -32600, data: { reason: 'UNSUPPORTED_ENCODING', header: 'Content-Encoding', encoding } } }, 'naming it');
  }
  const v1 = await post(Buffer.from(send), { 'Content-Encoding': 'gzip', 'A2A-Version': '1.0' });
  t.equal(v1.json.error?.data?.[0]?.reason, 'UNSUPPORTED_ENCODING', "1.0's shape under A2A-Version: 1.0");
  t.equal((await gw.rpc({ key, method: 'tasks/list', params: {} })).json.result?.tasks?.length, 0, 'nothing ran');
  const identity = await post(Buffer.from(send), { 'Content-Encoding': 'identity' });
  t.equal(identity.json.result?.status?.state, 'completed', 'identity is served');
});
