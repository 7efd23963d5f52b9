// What a module agent unrefs and leaves behind (a timer, an immediate, a socket) is invisible to Node's list of live
// handles, yet it runs later in whatever turn its worker serves next. The worker sees what agent code unrefs and is
// replaced after such a turn, as for a ref'd leftover. Real gateway on port 0, the agent in the test's temp dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const AGENT = `
import net from 'node:net';
let turns = 0;
import { setTimeout as sleep } from 'node:timers/promises';
export default async function* (ctx) {
  const [how, port] = ctx.message.parts[0].text.split(' ');
  if (how === 'timeout') setTimeout(() => process.exit(3), 100).unref();
  if (how === 'interval') setInterval(() => { for (;;); }, 100).unref();
  if (how === 'immediate') { const again = () => setImmediate(() => { if (performance.now() > at) process.exit(4); again(); }).unref(); const at = performance.now() + 100; again(); }
  if (how === 'promise') sleep(100, null, { ref: false }).then(() => process.exit(5));
  if (how === 'socket') {
    // connected before the turn ends: a connect still under way is a request, which Node lists ref'd or not
    const s = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.on('data', () => process.exit(6));
    s.unref();
  }
  if (how === 'wait') await new Promise((r) => setTimeout(r, 400));
  if (how === 'fetch') await (await fetch('http://127.0.0.1:' + port + '/')).text();
  turns++;
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'turn ' + turns + ' of this worker' }] } };
}`;

/** writes to each connection 150 ms after it opens: the agent's unref'd socket reads it during the next turn */
async function lateWriter(t: Test): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    setTimeout(() => s.write('x'), 150);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as { port: number }).port;
}
async function httpServer(t: Test): Promise<number> {
  const server = createHttpServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return (server.address() as { port: number }).port;
}

t.test("an unref'd leftover never runs in a later turn: its worker is replaced", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-unref-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'leaves-unrefd.js'), AGENT);
  const port = await lateWriter(t);
  const gw = await startTestGateway({
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 },
        { id: 'unrefd', name: 'unrefd', kind: 'module', entry: join(dir, 'leaves-unrefd.js'), timeoutMs: 15_000 },
      ],
      // one thread, so the next turn would be served by the same worker
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: 'unrefd' } }) });

  for (const [how, what] of [
    ['timeout', "an unref'd setTimeout calling process.exit()"],
    ['interval', "an unref'd setInterval that busy-loops"],
    ['immediate', "a chain of unref'd setImmediates calling process.exit()"],
    ['promise', "timers/promises' setTimeout with { ref: false }, then process.exit()"],
    ['socket', "an unref'd socket whose data handler calls process.exit()"],
  ] as const) {
    const r = await send(`${how} ${port}`);
    t.equal(r.json.result?.status?.state, 'completed', `the turn that left ${what} completed`);
    // the next turn outlasts the leftover's delay: on the same worker, the leftover would fire in it
    const next = await send('wait');
    t.equal(next.json.result?.status?.state, 'completed', `the next turn is not hit by ${what}`);
    t.equal(next.json.result?.status?.message?.metadata?.reason, undefined);
  }

  // Node's own unrefs are not the agent's: fetch leaves undici's idle keep-alive socket and clock timer unref'd
  const httpPort = await httpServer(t);
  const first = await send(`fetch ${httpPort}`);
  const second = await send(`fetch ${httpPort}`);
  const turnOf = (r: { json: any }): number => Number(/turn (\d+)/.exec(r.json.result?.status?.message?.parts?.[0]?.text ?? '')?.[1]);
  t.equal(turnOf(second), turnOf(first) + 1, 'an agent that fetches keeps its worker');
});
