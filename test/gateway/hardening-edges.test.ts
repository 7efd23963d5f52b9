// Issue 6 hardening of the HTTP and JSON-RPC edges: encoding, credentials, framing, pipelining, over-size uploads.
// Each test is named after the issue item it covers.
import { connect } from 'node:net';
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
    const res = await fetch(`${gw.url}/api/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: good,
    });
    const json = await res.json();
    t.equal(json.error?.code, -32700);
    t.match(json.error?.message, /UTF-8/);
    const tasks = await gw.gw.store.tasks.listByState(['submitted', 'working', 'completed', 'failed', 'canceled', 'input-required']);
    t.equal(tasks.length, 0, 'nothing ran');
  });

  t.test('ids past 256 characters are -32602 naming the field, not a failed store write; nothing is stored', async (t) => {
    const long = 'x'.repeat(2000);
    const cases: Array<[string, string, unknown, string]> = [
      ['rev A task id', 'tasks/send', { id: long, message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } }, 'params.id'],
      ['rev B taskId', 'message/send', msgB('hi', { taskId: long }), 'params.message.taskId'],
      ['messageId', 'message/send', { message: { ...msgB('hi').message, messageId: long } }, 'params.message.messageId'],
      ['tasks/get id', 'tasks/get', { id: long }, 'params.id'],
      ['push config id', 'tasks/pushNotificationConfig/get', { id: 'some-task', pushNotificationConfigId: long }, 'params.pushNotificationConfigId'],
    ];
    for (const [what, method, params, path] of cases) {
      const r = await gw.rpc({ method, key, params });
      t.equal(r.json.error?.code, -32602, what);
      t.equal(r.json.error?.data?.path, path, `${what}: the error names ${path}`);
      t.match(r.json.error?.message, /at most 256 characters/, what);
    }
    const ok = await gw.rpc({ method: 'tasks/send', key, params: { id: 'y'.repeat(256), message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } } });
    t.equal(ok.json.result?.status?.state, 'completed', 'an id of exactly 256 characters is fine');
    const tasks = await gw.gw.store.tasks.listByState(['submitted', 'working', 'completed', 'failed', 'canceled', 'input-required']);
    t.same(
      tasks.map((x) => x.id.length),
      [256],
      'only the valid task was stored',
    );
  });

  t.test('item 11: every client uploading an over-size body reads the 413 (the rest is read and dropped)', async (t) => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 20; i++) {
      try {
        const res = await fetch(`${gw.url}/api/a2a`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
          body: big,
        });
        const json = await res.json();
        statuses.push(res.status === 413 && json.error?.data?.reason === 'PAYLOAD_TOO_LARGE' ? 413 : `${res.status}`);
      } catch (e) {
        statuses.push(`failed: ${(e as Error).cause ? String((e as { cause: unknown }).cause) : (e as Error).message}`);
      }
    }
    t.same(statuses, Array(20).fill(413), 'all 20 uploads of 3 MiB read 413');
    // a client that uploads everything before it reads (as most do): the answer must wait for the upload's end,
    // or the client's later writes meet a closed socket whose reset throws the unread 413 away
    const answer = await new Promise<string>((resolve) => {
      const sock = connect(gw.gw.port, '127.0.0.1');
      let out = '';
      sock.on('data', (d) => (out += d.toString()));
      sock.on('error', (e) => resolve(out || `socket error: ${(e as NodeJS.ErrnoException).code}`));
      sock.on('close', () => resolve(out || 'closed without an answer'));
      void (async () => {
        sock.write(`POST /api/a2a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${big.length}\r\n\r\n`);
        for (let at = 0; at < big.length; at += 64 * 1024) {
          if (sock.destroyed) return;
          if (!sock.write(big.subarray(at, at + 64 * 1024))) await new Promise((r) => sock.once('drain', r));
          await new Promise((r) => setImmediate(r));
        }
        setTimeout(() => sock.end(), 500);
      })();
    });
    t.match(answer, /^HTTP\/1\.1 413/, 'a raw client that reads after uploading gets the 413');
    const after = await gw.rpc({ key, method: 'message/send', params: msgB('after') });
    t.equal(after.json.result?.status?.state, 'completed', 'the server goes on');
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
