// `a2a-gateway relays agent-trust` / `agent-keys` for an agent the relay has not announced: the setting is kept (it
// applies from the agent's first announcement on, so an operator can lower its trust before it is ever reachable),
// exit 0, and a warning on stderr says the relay has not announced it and names the agents it did, so a mistyped
// name does not pass quietly. Child processes on a real data dir; the relay's announcement recorded in its store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseConfig } from '../../src/config/parse.js';
import { openStore } from '../../src/open-store.js';
import { recordAnnouncement } from '../../src/runtime/relay-admin.js';
import { createKeyCli, runCli } from '../support/child-server.js';

t.setTimeout(300_000);

t.test('a setting for an agent not announced: kept, with a warning naming the announced agents', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-relays-unannounced-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const D = ['--data-dir', dir];
  const cli = (...args: string[]) => runCli(['relays', ...args, ...D]);
  const key = await createKeyCli(dir, { workspace: 'acme', trust: 'execute' });
  t.equal((await cli('add', '--workspace', 'acme', '--name', 'home', '--key', key.id)).code, 0);

  // before the relay ever connected: the operator lowers the agent's trust ahead of its first announcement
  const early = await cli('agent-trust', 'home', 'local-echo', 'read_only', '--workspace', 'acme');
  t.equal(early.code, 0, early.stderr);
  t.match(early.stdout, /relay home: local-echo {2}trust read_only .*\(not announced yet\)/);
  t.match(
    early.stderr,
    /warning: relay home has not announced an agent named local-echo \(it has announced no agents yet\); the setting is kept and applies once it does/,
  );

  // the relay connects and announces local-echo and two more: the setting made before stays
  const store = await openStore(parseConfig({ dataDir: dir }));
  const rec = await store.relays.get('acme', 'home');
  const cards = ['local-echo', 'notes', 'search'].map((name) => ({ name, description: '', skills: [], streaming: true }));
  t.ok(rec && (await recordAnnouncement({ relays: store.relays, clock: { now: () => Date.now() } }, rec, cards)), 'announced');
  await store.close();

  const agents = JSON.parse((await cli('agents', 'home', '--workspace', 'acme', '--json')).stdout);
  t.match(agents, [{ name: 'local-echo', trust: 'read_only', announced: true }, { name: 'notes' }, { name: 'search' }], 'the early setting applies');

  const announced = await cli('agent-trust', 'home', 'local-echo', 'admin', '--workspace', 'acme');
  t.equal(announced.code, 0, announced.stderr);
  t.equal(announced.stderr, '', 'no warning for an announced agent');

  // a mistyped name: kept as asked, but the warning shows the names the relay announced
  const typo = await cli('agent-keys', 'home', 'local-ecko', key.id, '--workspace', 'acme', '--json');
  t.equal(typo.code, 0, typo.stderr);
  t.match(JSON.parse(typo.stdout), { name: 'local-ecko', keys: [key.id], announced: false }, '--json: the setting, announced false');
  t.match(typo.stderr, /warning: relay home has not announced an agent named local-ecko \(it announced local-echo, notes, search\); .*\(check the name\)/);
});
