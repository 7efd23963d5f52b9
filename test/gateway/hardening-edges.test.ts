// Issue 6 hardening of the HTTP and JSON-RPC edges: encoding, credentials, framing, pipelining, over-size uploads.
// Each test is named after the issue item it covers.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.test('edges', async (t) => {
  const gw = await startTestGateway({ config: { maxBodyBytes: 64 * 1024 } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  t.test('item 10: invalid UTF-8 in a body is -32700, not silently replaced', async (t) => {
    const good = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'u1', method: 'message/send', params: msgB('caf\u00e9 XX') }));
    const at = good.indexOf('XX');
    good[at] = 0xc3; // a lead byte followed by an ASCII byte: not UTF-8
    const res = await fetch(gw.url + '/api/a2a', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: good });
    const json = await res.json();
    t.equal(json.error?.code, -32700);
    t.match(json.error?.message, /UTF-8/);
    const tasks = await gw.gw.store.tasks.listByState(['submitted', 'working', 'completed', 'failed', 'canceled', 'input-required']);
    t.equal(tasks.length, 0, 'nothing ran');
  });

  t.test('item 10: `Authorization: Bearer a b` is an invalid key, not a missing one', async (t) => {
    for (const h of ['Bearer a b', `Bearer ${key} extra`, 'Basic abc']) {
      const r = await gw.rpc({ method: 'tasks/get', params: { id: 'x' }, headers: { Authorization: h } });
      t.equal(r.status, 401, `${h}: 401`);
      t.match(r.json.error?.message, /invalid API key/, `${h}: said to be invalid`);
    }
    const none = await gw.rpc({ method: 'tasks/get', params: { id: 'x' } });
    t.match(none.json.error?.message, /missing/, 'no header at all is still "missing"');
  });
});
