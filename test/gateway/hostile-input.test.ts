// Issue 6, proof: a few hundred generated malformed bodies (depth, types, sizes, encodings, ids, batches) at a real
// server: each gets an answer (or a clean close), the server stays up, and nothing is stored.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { ALL_STATES } from '../support/tasks.js';

/** A small seeded PRNG (mulberry32): the same bodies on every run. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = [
  'message/send',
  'tasks/send',
  'tasks/get',
  'tasks/cancel',
  'message/stream',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'agents/list',
  'no/such',
];

function generate(n: number): Array<{ what: string; body: Buffer }> {
  const r = rng(6);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const deep = (levels: number, leaf: unknown = 1): unknown => {
    let v: unknown = leaf;
    for (let i = 0; i < levels; i++) v = r() < 0.5 ? [v] : { k: v };
    return v;
  };
  const junk = (): unknown =>
    pick([null, true, 0, -1, 1e308, '', 'x'.repeat(Math.floor(r() * 5000)), [], {}, [1, 'a', null], { '': 1 }, deep(Math.floor(r() * 1000))]);
  const out: Array<{ what: string; body: Buffer }> = [];
  const json = (what: string, v: unknown) => out.push({ what, body: Buffer.from(JSON.stringify(v)) });
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(r() * 10);
    const method = pick(METHODS);
    const id = pick<unknown>([1, 'a', null, undefined, {}, [], 1.5, -0, 'x'.repeat(300)]);
    switch (kind) {
      case 0: {
        // built as text: deeper than JSON.stringify (or any recursive writer) could go
        const levels = 500 + Math.floor(r() * 20000);
        const data = `${'{"k":'.repeat(levels)}1${'}'.repeat(levels)}`;
        out.push({
          what: 'deep params',
          body: Buffer.from(
            `{"jsonrpc":"2.0","id":1,"method":"${method}","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":${data}}]}}}`,
          ),
        });
        break;
      }
      case 1:
        json('wrong types', { jsonrpc: pick(['2.0', '1.0', 2, null]), id, method: pick<unknown>([method, 5, null, ['x']]), params: junk() });
        break;
      case 2:
        json('bad message', {
          jsonrpc: '2.0',
          id,
          method,
          params: { id: junk(), message: { role: junk(), parts: junk(), messageId: junk(), metadata: junk() }, configuration: junk() },
        });
        break;
      case 3:
        json('bad parts', {
          jsonrpc: '2.0',
          id,
          method,
          params: {
            message: { role: 'user', messageId: 'm', parts: [{ kind: pick(['text', 'file', 'data', 'bogus']), text: junk(), file: junk(), data: junk() }] },
          },
        });
        break;
      case 4:
        json(
          'batch',
          Array.from({ length: 1 + Math.floor(r() * 20) }, () => pick<unknown>([junk(), { jsonrpc: '2.0', id, method, params: junk() }])),
        );
        break;
      case 5: {
        const b = Buffer.from(
          JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message: { role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'abcdef' }] } } }),
        );
        b[b.indexOf('abcdef') + Math.floor(r() * 6)] = pick([0xc3, 0xff, 0xfe, 0x80, 0xed]);
        out.push({ what: 'invalid UTF-8', body: b });
        break;
      }
      case 6:
        out.push({
          what: 'not JSON',
          body: Buffer.from(pick(['', '{', '[', 'null', '"str"', '123', '{"jsonrpc":"2.0"', '[[[[[', '{}'.repeat(100), 'x'.repeat(1000)])),
        });
        break;
      case 7:
        out.push({ what: 'deep raw JSON', body: Buffer.from('['.repeat(2000 + Math.floor(r() * 100000)) + ']'.repeat(2000)) });
        break;
      case 8:
        json('big string', {
          jsonrpc: '2.0',
          id,
          method,
          params: { message: { role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'y'.repeat(Math.floor(r() * 2_000_000)) }] } },
        });
        break;
      default:
        json('odd ids and keys', {
          jsonrpc: '2.0',
          id,
          method,
          params: { id: pick<unknown>(['', 'a/b', '../x', '\u0000', 'x'.repeat(10000), 42]), historyLength: pick<unknown>([-1, 1e9, 'x', null]) },
        });
    }
  }
  return out;
}

t.test('hostile input: every malformed body gets an answer or a clean close; the server stays up; nothing is stored', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  // a key whose agents are none of the gateway's: even a well-formed send among the junk could create nothing
  const { key } = await gw.key({ agents: ['no-such-agent'] });
  const bodies = generate(300);
  const outcomes = new Map<string, number>();
  for (const { what, body } of bodies) {
    let outcome: string;
    try {
      const res = await fetch(`${gw.url}/api/a2a`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: new Uint8Array(body),
      });
      const text = await res.text();
      const ct = res.headers.get('content-type') ?? '';
      if (ct.startsWith('application/json')) JSON.parse(text); // every JSON answer is JSON
      outcome = `${res.status}`;
      if (![200, 400, 413, 431].includes(res.status)) t.fail(`${what}: unexpected status ${res.status}: ${text.slice(0, 200)}`);
    } catch (e) {
      outcome = `closed: ${String((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message)}`;
    }
    outcomes.set(`${what} -> ${outcome}`, (outcomes.get(`${what} -> ${outcome}`) ?? 0) + 1);
  }
  t.comment([...outcomes].map(([k, v]) => `${v} x ${k}`).join('\n'));
  const h = await fetch(`${gw.url}/healthz`);
  t.equal(h.status, 200, 'the server is up');
  const ok = await gw.rpc({ key: (await gw.key()).key, method: 'agents/list', params: {} });
  t.ok(ok.json.result, 'and answers a normal call');
  t.same(await gw.gw.store.tasks.listByState(ALL_STATES), [], 'nothing was stored');
});
