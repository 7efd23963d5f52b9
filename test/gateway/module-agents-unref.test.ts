// What a module agent unrefs and leaves behind (a timer, an immediate, a socket, a watcher, a port, a BroadcastChannel), and a
// Worker thread it starts, is invisible to Node's list of live handles, yet it runs later in whatever turn its worker
// serves next. The worker sees these and is replaced after such a turn, as for a ref'd leftover. Real gateway on port 0, the agent in the test's temp dir.
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const AGENT = `
import net from 'node:net';
import dgram from 'node:dgram';
import { watch, watchFile } from 'node:fs';
import { watch as watchAsync } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { MessageChannel, Worker } from 'node:worker_threads';
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
  if (how === 'dgram') {
    // the test's UDP peer answers 150 ms after it hears from this socket
    const s = dgram.createSocket('udp4');
    await new Promise((r) => s.bind(0, '127.0.0.1', r));
    s.on('message', () => process.exit(7));
    s.send('hi', Number(port), '127.0.0.1');
    s.unref();
  }
  // the test writes a file into the watched folder 150 ms after this turn
  if (how === 'watch') watch(port, () => process.exit(8)).unref();
  if (how === 'port') {
    // two ports passing a message to and fro, each unref'd: nothing else keeps them going
    const { port1, port2 } = new MessageChannel();
    const at = performance.now() + 100;
    port1.on('message', () => { if (performance.now() > at) process.exit(9); port1.postMessage('ping'); });
    port2.on('message', (m) => port2.postMessage(m));
    port1.unref();
    port2.unref();
    port1.postMessage('ping');
  }
  if (how === 'child') {
    const c = spawn('sleep', ['0.15'], { stdio: 'ignore' });
    c.on('exit', () => process.exit(10));
    c.unref();
  }
  // the test posts on the channel's name 150 ms after this turn, from the gateway's own thread
  if (how === 'broadcast') { const bc = new BroadcastChannel(port); bc.onmessage = () => process.exit(11); bc.unref(); }
  // a thread of its own that posts back 150 ms after it starts; ref'd or not, Node does not list it
  const late = "setTimeout(() => require('node:worker_threads').parentPort.postMessage('x'), 150)";
  if (how === 'worker') { const w = new Worker(late, { eval: true }); w.on('message', () => process.exit(12)); w.unref(); }
  // no 'message' listener (which refs the Worker's port, and Node lists that): one on 'exit' after 150 ms
  if (how === 'worker-refd') new Worker('setTimeout(() => {}, 150)', { eval: true }).on('exit', () => process.exit(13));
  // a thread that connects to the test's server and holds on: it must end with this worker
  if (how === 'worker-holds') {
    const w = new Worker("const s = require('node:net').connect(" + Number(port) + ", '127.0.0.1', () => require('node:worker_threads').parentPort.postMessage('up')); setInterval(() => {}, 1000)", { eval: true });
    await new Promise((r) => w.once('message', r));
    w.unref();
  }
  // the non-persistent watchers: the test writes a file into the watched folder 150 ms after this turn
  if (how === 'watch-async') (async () => { for await (const _ of watchAsync(port, { persistent: false })) process.exit(14); })();
  if (how === 'watch-np') watch(port, { persistent: false }, () => process.exit(15));
  if (how === 'watchfile-np') watchFile(port + '/touched', { persistent: false, interval: 20 }, () => process.exit(16));
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
/** answers each datagram 150 ms after it arrives: the agent's unref'd dgram socket reads it during the next turn */
async function lateUdpPeer(t: Test): Promise<number> {
  const peer = createSocket('udp4');
  peer.on('message', (_m, from) => setTimeout(() => peer.send('x', from.port, from.address), 150));
  await new Promise<void>((r) => peer.bind(0, '127.0.0.1', r));
  t.teardown(() => peer.close());
  return peer.address().port;
}
/** a server whose `closed` resolves once the first connection to it closes (from the other end: it never closes one) */
async function holdingServer(t: Test): Promise<{ port: number; closed: Promise<void> }> {
  let onClose: () => void = () => {};
  const closed = new Promise<void>((r) => {
    onClose = r;
  });
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', onClose);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { port: (server.address() as { port: number }).port, closed };
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
  const udpPort = await lateUdpPeer(t);
  const channel = `a2a-unref-${process.pid}`;
  const poster = new BroadcastChannel(channel);
  t.teardown(() => poster.close());
  const gw = await startTestGateway({
    config: {
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 },
        // allowed child processes: an unref'd child is one of the leftovers tried
        { id: 'unrefd', name: 'unrefd', kind: 'module', entry: join(dir, 'leaves-unrefd.js'), timeoutMs: 15_000, childProcesses: true },
      ],
      // one thread, so the next turn would be served by the same worker
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: 'unrefd' } }) });
  // a first turn that leaves nothing: a worker's first turn waits out the module loader's file requests (slow under
  // load), and a leftover set in that turn could fire while it waits, inside its own turn, failing it (seen in CI)
  const warm = await send('warm');
  t.equal(warm.json.result?.status?.state, 'completed', 'a turn that leaves nothing completes');

  for (const [how, what] of [
    ['timeout', "an unref'd setTimeout calling process.exit()"],
    ['interval', "an unref'd setInterval that busy-loops"],
    ['immediate', "a chain of unref'd setImmediates calling process.exit()"],
    ['promise', "timers/promises' setTimeout with { ref: false }, then process.exit()"],
    ['socket', "an unref'd socket whose data handler calls process.exit()"],
    ['dgram', "an unref'd dgram socket whose message handler calls process.exit()"],
    ['watch', "an unref'd fs watcher whose listener calls process.exit()"],
    ['port', "two unref'd MessagePorts passing a message to and fro, then process.exit()"],
    ['child', "an unref'd child process whose exit handler calls process.exit()"],
    ['broadcast', "an unref'd BroadcastChannel whose message handler calls process.exit()"],
    ['worker', "an unref'd Worker whose message handler calls process.exit()"],
    ['worker-refd', "a Worker (ref'd) whose exit handler calls process.exit()"],
    ['watch-async', 'fs.promises.watch with persistent: false, its for await calling process.exit()'],
    ['watch-np', 'fs.watch with persistent: false, its listener calling process.exit()'],
    ['watchfile-np', 'fs.watchFile with persistent: false, its listener calling process.exit()'],
  ] as const) {
    // each watcher its own folder, so that no later write reaches an earlier one
    const folder = how.startsWith('watch') ? join(dir, how) : '';
    if (folder) await mkdir(folder);
    // fs.watchFile calls its listener at once for a missing file: this one is there already, and the write changes its size
    if (how === 'watchfile-np') await writeFile(join(folder, 'touched'), '');
    const arg = how === 'dgram' ? udpPort : how === 'broadcast' ? channel : folder || port;
    const r = await send(`${how} ${arg}`);
    t.equal(r.json.result?.status?.state, 'completed', `the turn that left ${what} completed`);
    if (folder) setTimeout(() => void writeFile(join(folder, 'touched'), 'x'), 150);
    if (how === 'broadcast') setTimeout(() => poster.postMessage('x'), 150);
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

  // a thread the agent started ends with the worker it was recycled from (without the recycle this waits to the timeout)
  const held = await holdingServer(t);
  const holds = await send(`worker-holds ${held.port}`);
  t.equal(holds.json.result?.status?.state, 'completed', 'the turn that left a Worker holding a connection completed');
  await held.closed;
  t.pass("the Worker's connection closed: its thread ended with the recycled worker");
  const after = await send('wait');
  t.equal(turnOf(after), 1, 'the next turn runs on a fresh worker');
});
