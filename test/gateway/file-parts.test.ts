// A caller's file part, in each dialect: bytes that are not base64, a URI that is not absolute, a 0.x file with both
// or neither of bytes and uri, a name past 1,024 characters or a type past 256 or not `type/subtype` are -32602 naming
// the field, and nothing is stored (they were stored and answered as if they were files, names of megabytes too).
// Good file parts of every shape still pass.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { ALL_STATES } from '../support/tasks.js';

t.test('file parts are checked where callers send them', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  let n = 0;
  const revA = (file: unknown) => ({ method: 'tasks/send', params: { id: `fa-${++n}`, message: { role: 'user', parts: [{ type: 'file', file }] } } });
  const revB = (file: unknown) => ({
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: `fb-${++n}`, parts: [{ kind: 'file', file }] } },
  });
  const v1 = (part: unknown) => ({ method: 'SendMessage', params: { message: { messageId: `fv-${++n}`, role: 'ROLE_USER', parts: [part] } } });

  const refused: Array<[string, { method: string; params: unknown }, string, RegExp]> = [
    ['rev A bytes not base64', revA({ name: 'a', bytes: '%%% not base64' }), 'params.message.parts.0.file.bytes', /must be base64/],
    ['rev B bytes not base64', revB({ bytes: 'abc!' }), 'params.message.parts.0.file.bytes', /must be base64/],
    ['rev B bytes of impossible length', revB({ bytes: 'AAAAA' }), 'params.message.parts.0.file.bytes', /must be base64/],
    ['rev B uri not absolute', revB({ uri: 'files/report.pdf' }), 'params.message.parts.0.file.uri', /absolute URI/],
    ['rev B neither bytes nor uri', revB({ name: 'empty.txt', mimeType: 'text/plain' }), 'params.message.parts.0.file', /one of bytes or uri/],
    ['rev A both bytes and uri', revA({ bytes: 'AAAA', uri: 'https://files.example/a' }), 'params.message.parts.0.file', /one of bytes or uri/],
    ['1.0 raw not base64', v1({ raw: '@@@@', filename: 'a.bin' }), 'params.message.parts.0.raw', /must be base64/],
    ['1.0 url not absolute', v1({ url: '/relative/a.pdf' }), 'params.message.parts.0.url', /absolute URI/],
    [
      'rev A name of a megabyte (the body limit)',
      revA({ name: 'n'.repeat(1_000_000), bytes: 'AAAA' }),
      'params.message.parts.0.file.name',
      /at most 1024 characters/,
    ],
    ['rev B name past 1,024', revB({ name: `${'n'.repeat(1024)}.txt`, bytes: 'AAAA' }), 'params.message.parts.0.file.name', /at most 1024 characters/],
    ['rev B overlong mimeType', revB({ mimeType: `text/${'x'.repeat(300)}`, bytes: 'AAAA' }), 'params.message.parts.0.file.mimeType', /at most 256 characters/],
    ['rev A mimeType not type/subtype', revA({ mimeType: 'pdf', uri: 'https://files.example/a' }), 'params.message.parts.0.file.mimeType', /media type/],
    ['1.0 filename past 1,024', v1({ raw: 'AAAA', filename: 'n'.repeat(1025) }), 'params.message.parts.0.filename', /at most 1024 characters/],
    ['1.0 mediaType not type/subtype', v1({ url: 'https://files.example/a', mediaType: 'image png' }), 'params.message.parts.0.mediaType', /media type/],
  ];
  for (const [what, call, path, why] of refused) {
    const r = await gw.rpc({ key, ...call });
    t.equal(r.json.error?.code, -32602, `${what}: -32602`);
    t.equal(r.json.error?.data?.path ?? r.json.error?.data?.[0]?.metadata?.path, path, `${what}: names ${path}`);
    t.match(r.json.error?.message, why, `${what}: ${r.json.error?.message}`);
  }
  t.same(await gw.gw.store.tasks.listByState(ALL_STATES), [], 'nothing was stored');

  const accepted: Array<[string, { method: string; params: unknown }]> = [
    ['rev A padded base64', revA({ name: 'a.txt', bytes: Buffer.from('file body').toString('base64') })],
    ['rev B unpadded base64url', revB({ bytes: Buffer.from([0xfb, 0xff, 0x01]).toString('base64url').replace(/=+$/, '') })],
    ['rev B empty file', revB({ name: 'empty', bytes: '' })],
    ['rev B absolute uri', revB({ uri: 'https://files.example/r.pdf', mimeType: 'application/pdf' })],
    ['1.0 raw', v1({ raw: 'iVBORw0KGgo=', mediaType: 'image/png' })],
    ['1.0 url', v1({ url: 's3://bucket/key.pdf' })],
    ['rev B name at the limit, mimeType with a parameter', revB({ name: 'n'.repeat(1024), mimeType: 'text/plain; charset=utf-8', bytes: 'AAAA' })],
    ['1.0 filename at the limit, vendor mediaType', v1({ raw: 'AAAA', filename: 'n'.repeat(1024), mediaType: 'application/vnd.example+json' })],
  ];
  for (const [what, call] of accepted) {
    const r = await gw.rpc({ key, ...call });
    t.notOk(r.json.error, `${what}: accepted (${JSON.stringify(r.json.error ?? null)})`);
  }
});
