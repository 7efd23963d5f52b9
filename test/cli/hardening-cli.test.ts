// Issue 6, first contact: a port in use is an error that names the port and the reason (item 19).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli, startChildServer } from '../support/child-server.js';

t.setTimeout(180_000);

t.test('item 19: a second gateway on a port in use exits non-zero naming the port and why; the first keeps it alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-port-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const first = await startChildServer({ dataDir: join(dir, 'one') });
  t.teardown(() => first.kill('SIGKILL'));
  const second = await runCli(['serve', '--port', String(first.port), '--data-dir', join(dir, 'two')], { timeoutMs: 60_000 });
  t.not(second.code, 0, 'exits non-zero');
  t.notMatch(second.stdout, /listening/, 'never says it listens');
  t.match(second.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${first.port}: the port is already in use`), second.stderr);
  const h = await fetch(first.url + '/healthz');
  t.equal(h.status, 200, 'the first gateway still answers');

  // a port held by another kind of socket (a plain TCP server) says why too
  const other = createServer();
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => other.close(r)));
  const port = (other.address() as { port: number }).port;
  const third = await runCli(['serve', '--port', String(port), '--data-dir', join(dir, 'three')], { timeoutMs: 60_000 });
  t.not(third.code, 0);
  t.match(third.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`), third.stderr);
});
