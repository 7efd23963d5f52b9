// `connections list` and `relays list` with a --workspace too long for any store key (LMDB's 1,978 bytes): no record
// can be in it, so the answer is an empty list, as `keys list` gives; before, LMDB's range read failed the command
// with "Key of size 3002 was too large" (exit 1). A real data dir, the CLI as a user runs it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKeyCli, runCli } from '../support/child-server.js';

t.setTimeout(300_000);

t.test('a list filtered by a workspace no key can hold is empty', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-long-ws-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const key = await createKeyCli(dataDir, { workspace: 'ws1', trust: 'execute' });
  const relay = await cli(['relays', 'add', '--workspace', 'ws1', '--name', 'r1', '--key', key.id, '--json']);
  t.equal(relay.code, 0, relay.stderr);
  const conn = await cli(['connections', 'add', '--workspace', 'ws1', '--name', 'c1', '--url', 'https://agent.example.com/a2a', '--json']);
  t.equal(conn.code, 0, conn.stderr);

  const long = 'w'.repeat(3000);
  for (const what of ['connections', 'relays', 'keys']) {
    const r = await cli([what, 'list', '--workspace', long, '--json']);
    t.equal(r.code, 0, `${what} list: exit 0: ${r.stderr.slice(0, 200)}`);
    t.same(JSON.parse(r.stdout), [], `${what} list: nothing in that workspace`);
    const ws1 = await cli([what, 'list', '--workspace', 'ws1', '--json']);
    t.equal(JSON.parse(ws1.stdout).length, 1, `${what} list: ws1's record is still listed`);
  }
});
