// What an Authorization header may look like, as the A2A endpoint reads it (behaviour that held in the h-auth sweep):
// the scheme in any case and any run of blanks before the key; only Authorization carries a key (X-API-Key is never
// read, so it cannot disagree with it); a header that is not `Bearer <one token>` is an invalid key, a bare key without
// the scheme too (it was accepted: fixed in h-auth, on the admin API as well); a key one character off a real one reads
// as any unknown key; two Authorization lines are refused whole (400), whichever holds the right key.
import { connect } from 'node:net';
import t from 'tap';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} });
const call = (tg: TestGateway, headers: Record<string, string>) => tg.rpc({ body: BODY, headers });

/** The status line of one request sent as raw bytes (header lines fetch would merge or refuse). */
function rawStatus(tg: TestGateway, headerLines: string[]): Promise<string> {
  const { hostname, port } = new URL(tg.url);
  const head = ['POST /api/a2a HTTP/1.1', `Host: ${hostname}:${port}`, 'Content-Type: application/json', ...headerLines];
  const text = `${head.join('\r\n')}\r\nContent-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY}`;
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(text));
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.on('end', () => resolve(out.split('\r\n')[0]!));
    s.on('error', reject);
  });
}

t.test('Authorization variants', async (t) => {
  const tg = await startTestGateway({ config: { authFailures: { perMinute: 1000, perHour: 10000 }, dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const good = await tg.key({ trust: 'read_only' });
  const other = await tg.key({ trust: 'read_only' });
  const wrong = `svc_a2a_${'Q'.repeat(43)}`;

  for (const h of [`bearer ${good.key}`, `BEARER ${good.key}`, `Bearer    ${good.key}   `, `Bearer\t${good.key}`]) {
    t.equal((await call(tg, { Authorization: h })).status, 200, `accepted: ${JSON.stringify(h.replace(good.key, '<key>'))}`);
  }

  const onlyApiKey = await call(tg, { 'X-API-Key': good.key });
  t.equal(onlyApiKey.status, 401, 'X-API-Key alone is no key');
  t.match(onlyApiKey.json.error.message, /missing Authorization: Bearer/);
  t.equal((await call(tg, { Authorization: `Bearer ${good.key}`, 'X-API-Key': wrong })).status, 200, 'a disagreeing X-API-Key is not read');
  t.equal((await call(tg, { Authorization: `Bearer ${wrong}`, 'X-API-Key': good.key })).status, 401, 'nor does it rescue a wrong Bearer');

  const unknown = await call(tg, { Authorization: `Bearer ${wrong}` });
  for (const h of [
    `Bearer ${good.key} ${other.key}`,
    `Basic ${Buffer.from(`u:${good.key}`).toString('base64')}`,
    good.key,
    `Bearer ${good.key},Bearer ${other.key}`,
    'Bearer',
  ]) {
    const r = await call(tg, { Authorization: h });
    t.equal(r.status, 401, `refused: ${h.slice(0, 12)}…`);
    t.same(r.json.error, unknown.json.error, 'read as an unknown key');
  }
  const admin = await tg.key({ trust: 'admin' });
  const adminKeys = (authorization: string) => fetch(`${tg.url}/api/admin/keys`, { headers: { Authorization: authorization } });
  t.equal((await adminKeys(`Bearer ${admin.key}`)).status, 200, 'the admin API takes a Bearer admin key');
  t.equal((await adminKeys(admin.key)).status, 401, 'and refuses the bare key, as the A2A endpoint does');

  const last = good.key.at(-1) === 'A' ? 'B' : 'A';
  const offByOne = await call(tg, { Authorization: `Bearer ${good.key.slice(0, -1)}${last}` });
  t.same(offByOne.json.error, unknown.json.error, 'a key one character off a real one reads as any unknown key');
  t.same(offByOne.headers.get('www-authenticate'), unknown.headers.get('www-authenticate'));

  t.match(await rawStatus(tg, [`Authorization: Bearer ${good.key}`, `Authorization: Bearer ${wrong}`]), / 400 /, 'two lines: refused');
  t.match(
    await rawStatus(tg, [`Authorization: Bearer ${wrong}`, `Authorization: Bearer ${good.key}`]),
    / 400 /,
    'two lines in the other order: refused too (a right second line rescues nothing)',
  );
});
