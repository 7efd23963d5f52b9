// A config the relay refuses is refused before anything listens or connects: the real `a2a-relay` exits 2 with the
// field's message, having bound no admin port and opened nothing (it bound its admin UI first, then refused a ws://
// gateway URL not on loopback, a bad ca_file or a hello over the frame bound). Made deterministic by occupying the
// admin port: a relay that tried to bind it would stop on "the admin UI cannot start ... EADDRINUSE" instead, as a
// good config shows. A loopback listener stands for the gateway and the local agent, and counts connections.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RELAY_BIN, runCli } from '../support/child-server.js';

t.setTimeout(120_000);

async function listening(s: Server): Promise<number> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as { port: number }).port;
}

t.test('a refused config exits 2 before the admin UI binds its port or anything connects', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-start-order-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // the admin port, taken: binding it is the one way to start the admin UI
  const taken = createServer();
  const adminPort = await listening(taken);
  t.teardown(() => new Promise<void>((r) => taken.close(() => r())));
  // the gateway and the local agent: any connection to it is the relay having connected
  let connections = 0;
  const peer = createServer((sock) => {
    connections++;
    sock.destroy();
  });
  const peerPort = await listening(peer);
  t.teardown(() => new Promise<void>((r) => peer.close(() => r())));
  const local = `http://127.0.0.1:${peerPort}/a2a`;
  const base = { workspace_id: 'ws1', api_key: 'relay-key-So7dE3xq', admin_bind: '127.0.0.1', admin_port: adminPort };

  const run = async (name: string, config: Record<string, unknown>, env: Record<string, string> = {}) => {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify({ ...base, ...config }));
    return runCli(['--config', file], { bin: RELAY_BIN, env });
  };
  const skills = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description: 'd'.repeat(1_000) }));
  const refused: Array<[string, Record<string, unknown>, Record<string, string>, RegExp]> = [
    [
      'ws-remote',
      { gateway_url: 'ws://gw.example.com', agents: [{ name: 'echo', local_url: local }] },
      {},
      /^a2a-relay: bad config: gateway_url: ws:\/\/ \(no TLS\) is allowed only to a loopback gateway/m,
    ],
    [
      'ca-file',
      { gateway_url: `ws://127.0.0.1:${peerPort}`, ca_file: join(dir, 'no-such-ca.pem') },
      { LOCAL_AGENT_URL: local },
      /^a2a-relay: bad config: ca_file: /m,
    ],
    [
      'hello-bound',
      { gateway_url: `ws://127.0.0.1:${peerPort}`, agents: Array.from({ length: 100 }, (_, i) => ({ name: `agent-${i}`, local_url: local, skills })) },
      {},
      /^a2a-relay: bad config: agents: the agents' cards make a hello of \d+ bytes/m,
    ],
  ];
  for (const [name, config, env, said] of refused) {
    const r = await run(name, config, env);
    t.equal(r.code, 2, `${name}: exit 2 (${r.stderr.trim().split('\n').pop()})`);
    t.match(r.stderr, said, `${name}: the field's message`);
    t.notMatch(r.stderr, /admin UI/, `${name}: the admin UI neither listened nor tried to bind its port`);
    t.equal(r.stdout, '', `${name}: nothing on stdout`);
  }
  t.equal(connections, 0, 'no refused relay connected to the gateway or a local agent');

  // the probe is a real one: a config the relay takes does bind the admin port first, and meets it taken
  const good = await run('good', { gateway_url: `ws://127.0.0.1:${peerPort}`, agents: [{ name: 'echo', local_url: local }] });
  t.equal(good.code, 2);
  t.match(good.stderr, new RegExp(`a2a-relay: the admin UI cannot start on 127\\.0\\.0\\.1:${adminPort}: .*EADDRINUSE`));
  t.equal(connections, 0, 'and it stopped there, before connecting');
});
