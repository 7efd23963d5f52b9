// `a2a-gateway call` to a remote nothing answers for (a closed port: connection refused) fails `unreachable`, in text
// and with --json, as the README and the outbound codes say (it said `unavailable`: the connection's own refusal while
// it backs off from that card read). A remote that answers its card read with HTTP 503 is there but not usable now:
// `unavailable`, nothing sent. The real CLI as a child process against a real closed port and a card server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cardServer } from '../support/card-server.js';
import { runCli } from '../support/child-server.js';

t.setTimeout(120_000);

/** a loopback port nothing listens on */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('a call to a closed port is unreachable; a remote answering 503 is unavailable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-call-unreachable-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cfg = join(dir, 'config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: join(dir, 'data'), push: { allowlist: ['127.0.0.1'] } }));
  const C = ['--config', cfg, '--workspace', 'ws1'];
  const port = await closedPort();
  const s = await cardServer(t);
  s.route.set('/busy/.well-known/agent-card.json', () => ({ status: 503, headers: { 'retry-after': '30' }, body: { error: 'maintenance' } }));
  for (const [name, url] of [
    ['dead', `http://127.0.0.1:${port}/a2a`],
    ['busy', `${s.url}/busy`],
  ]) {
    const add = await runCli(['connections', 'add', ...C, '--name', name!, '--url', url!]);
    t.equal(add.code, 0, add.stderr);
  }

  const text = await runCli(['call', 'dead', 'hi', ...C]);
  t.equal(text.code, 1);
  t.equal(text.stdout, '', 'no result printed');
  t.match(
    text.stderr,
    new RegExp(
      `^a2a-gateway: call failed \\(unreachable\\): connection 'dead' cannot reach its remote: http://127\\.0\\.0\\.1:${port} cannot be reached \\(ECONNREFUSED`,
    ),
  );

  const json = await runCli(['call', 'dead', 'hi', ...C, '--json']);
  t.equal(json.code, 1);
  const lines = json.stdout.trim().split('\n');
  t.equal(lines.length, 1, 'one line on stdout');
  t.match(JSON.parse(lines[0]!), { error: { code: 'unreachable', message: /cannot be reached \(ECONNREFUSED/ } });
  t.match(json.stderr, /^a2a-gateway: call failed \(unreachable\): /);

  const busy = await runCli(['call', 'busy', 'hi', ...C, '--json']);
  t.equal(busy.code, 1);
  t.match(JSON.parse(busy.stdout.trim()), { error: { code: 'unavailable', message: /connection 'busy' cannot reach its remote: .*HTTP 503/ } });
  t.notOk(
    s.seen.some((r) => r.method === 'POST'),
    'nothing was sent to the remote that said 503',
  );
});
