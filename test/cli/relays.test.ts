// `a2a-gateway relays ...` as a user runs it (child processes, a real data dir): add, list, show, agents, agent-trust,
// agent-keys, remove, in text and JSON; refusals that name the field and change nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKeyCli, runCli } from '../support/child-server.js';

t.setTimeout(600_000);

t.test('relays: register, list, show, set an agent, remove; refusals change nothing', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-relays-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const D = ['--data-dir', dir];
  const key = await createKeyCli(dir, { workspace: 'acme', trust: 'execute' });
  const otherKey = await createKeyCli(dir, { workspace: 'other', trust: 'execute' });
  const cli = (...args: string[]) => runCli(['relays', ...args, ...D]);

  const added = await cli('add', '--workspace', 'acme', '--name', 'home', '--key', key.id, '--json');
  t.equal(added.code, 0, added.stderr);
  const rec = JSON.parse(added.stdout);
  t.match(rec, { workspace: 'acme', name: 'home', key_id: key.id, agents: [] });
  t.notMatch(added.stdout, key.key, 'the key itself never shows');

  const dup = await cli('add', '--workspace', 'acme', '--name', 'home', '--key', key.id);
  t.equal(dup.code, 2);
  t.match(dup.stderr, /name: a relay named home already exists/);
  const foreign = await cli('add', '--workspace', 'acme', '--name', 'x', '--key', otherKey.id);
  t.equal(foreign.code, 2);
  t.match(foreign.stderr, /key: .* another workspace/);
  const missing = await cli('add', '--workspace', 'acme', '--key', key.id);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /name: is required \(--name\)/);
  const reused = await cli('add', '--workspace', 'acme', '--name', 'second', '--key', key.id);
  t.equal(reused.code, 2);
  t.match(reused.stderr, /already opens relay home/);

  const list = await cli('list', '--json');
  t.strictSame(
    JSON.parse(list.stdout).map((r: { name: string }) => r.name),
    ['home'],
    'refused adds wrote nothing',
  );
  t.match((await cli('list')).stdout, /acme {2}home {2}key /);

  const trust = await cli('agent-trust', 'home', 'local-echo', 'admin', '--workspace', 'acme', '--json');
  t.equal(trust.code, 0, trust.stderr);
  t.match(JSON.parse(trust.stdout), { name: 'local-echo', trust: 'admin', keys: [], announced: false });
  const badTrust = await cli('agent-trust', 'home', 'local-echo', 'root', '--workspace', 'acme');
  t.equal(badTrust.code, 2);
  t.match(badTrust.stderr, /trust:/);
  const [second, revoked] = await Promise.all([createKeyCli(dir, { workspace: 'acme' }), createKeyCli(dir, { workspace: 'acme' })]);
  t.equal((await runCli(['keys', 'revoke', revoked.id, ...D])).code, 0);
  const keys = await cli('agent-keys', 'home', 'local-echo', `${key.id},${second.id}`, '--workspace', 'acme', '--json');
  t.match(JSON.parse(keys.stdout), { trust: 'admin', keys: [key.id, second.id] }, 'trust stays when keys change');
  // a list naming a key no caller of this workspace holds would let no intended caller in, and say nothing
  const [typo, foreignKey, revokedKey] = await Promise.all([
    cli('agent-keys', 'home', 'local-echo', `${key.id},k2`, '--workspace', 'acme'),
    cli('agent-keys', 'home', 'local-echo', otherKey.id, '--workspace', 'acme'),
    cli('agent-keys', 'home', 'local-echo', revoked.id, '--workspace', 'acme'),
  ]);
  for (const [r, message] of [
    [typo, /keys: no key k2/],
    [foreignKey, new RegExp(`keys: ${otherKey.id} is a key of another workspace`)],
    [revokedKey, new RegExp(`keys: ${revoked.id} is revoked`)],
  ] as const) {
    t.equal(r.code, 2, r.stderr);
    t.match(r.stderr, message);
  }
  t.match(
    JSON.parse((await cli('agents', 'home', '--workspace', 'acme', '--json')).stdout),
    [{ name: 'local-echo', keys: [key.id, second.id] }],
    'refused lists changed nothing',
  );

  const agents = await cli('agents', 'home', '--workspace', 'acme', '--json');
  t.match(JSON.parse(agents.stdout), [{ name: 'local-echo', trust: 'admin' }]);
  t.match((await cli('show', 'home', '--workspace', 'acme')).stdout, /relay home .* in workspace acme\n {2}key +\S+\n/);
  const nf = await cli('show', 'nope', '--workspace', 'acme');
  t.equal(nf.code, 2);
  t.match(nf.stderr, /no relay named nope in workspace acme/);

  const removed = await cli('remove', 'home', '--workspace', 'acme');
  t.equal(removed.code, 0);
  t.match(removed.stdout, /relay home removed from workspace acme/);
  t.match((await cli('list')).stdout, /no relays/);
});
