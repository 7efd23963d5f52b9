// A caller's file part, in each dialect: bytes that are not base64, a URI that is not absolute, or a 0.x file with both
// or neither of bytes and uri are -32602 naming the field, and nothing is stored (they were stored and answered as if
// they were files). Good file parts of every shape still pass.
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
  ];
  for (const [what, call] of accepted) {
    const r = await gw.rpc({ key, ...call });
    t.notOk(r.json.error, `${what}: accepted (${JSON.stringify(r.json.error ?? null)})`);
  }
});
