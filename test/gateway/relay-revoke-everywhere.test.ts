// "Revoking the key closes a live tunnel at once" (design/relay.md), on every instance of a scale-out over Redis: the
// key is revoked through instance A's admin API while the relay's tunnel is held by instance B. Before, B found out
// at its next key check (streaming.keyCheckMs) and a relay moved to another key at its next record sync
// (RELAY_SYNC_MS, 5 s); now A tells every instance at once, and so does the CLI (a process of its own) on Redis. Both instances run on one ManualClock that is never
// advanced here, so no periodic check can be what closes the tunnel; the wait for the close is a bound that fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { adminCall } from '../support/admin-api.js';
import { runCli } from '../support/cli.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay } from '../support/tunnel-client.js';

t.setTimeout(60_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: false });

/** the close, or 'still open' after `ms` of real time */
const closedWithin = <T>(closed: Promise<T>, ms = 5_000) => Promise.race([closed, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms))]);

async function twoInstances(t: Test, name: string) {
  const prefix = testPrefix(name);
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, { prefix, clock });
  return { a, b, clock, prefix };
}

t.test("revoking the relay's key on instance A closes its tunnel on instance B at once", async (t) => {
  const { a, b } = await twoInstances(t, 'relay-revoke-everywhere');
  const { relayKey } = await registerRelay(a, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const admin = await a.key({ workspace: 'ws1', trust: 'admin' });
  const { client, answer } = await connectRelay({ url: b.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome' }, "B holds the relay's tunnel");

  const revoked = await adminCall(a, 'POST', `/keys/${relayKey.id}/revoke`, { bearer: admin.key });
  t.equal(revoked.status, 200, 'revoked through A');
  t.match(await closedWithin(client.closed), { code: 4001, reason: /key revoked/ }, "B closed the tunnel, with no key check's time passing");
});

t.test('a relay moved to another key through instance A: its old tunnel on instance B closes at once', async (t) => {
  const { a, b } = await twoInstances(t, 'relay-rekey-everywhere');
  const { relayKey } = await registerRelay(a, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const admin = await a.key({ workspace: 'ws1', trust: 'admin' });
  const { client, answer } = await connectRelay({ url: b.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome' });

  // the operator's rotation: a new key, the relay registered under it (remove, add), the old key not yet revoked
  const rotated = await adminCall(a, 'POST', `/keys/${relayKey.id}/rotate`, { bearer: admin.key });
  t.equal(rotated.status, 200);
  t.equal((await adminCall(a, 'DELETE', '/relays/home', { bearer: admin.key })).status, 200, 'removed through A');
  t.equal(
    (await adminCall(a, 'POST', '/relays', { bearer: admin.key, body: { name: 'home', key: rotated.json.id } })).status,
    200,
    'added again under the new key',
  );
  t.match(await closedWithin(client.closed), { code: 1008 }, "B closed the old key's tunnel, with no record sync's time passing");
});

t.test('the CLI on the same Redis: a revoked key and a removed relay close their tunnels at once', async (t) => {
  const { a, b, prefix } = await twoInstances(t, 'relay-revoke-cli');
  // the CLI's store: a config file naming the instances' Redis and prefix
  const dir = await mkdtemp(join(tmpdir(), 'relay-revoke-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.json');
  await writeFile(file, JSON.stringify({ store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix }));

  const first = await registerRelay(a, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const one = await connectRelay({ url: b.url, key: first.relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.teardown(() => one.client.close());
  t.match(one.answer, { t: 'welcome' });
  const revoked = await runCli(['keys', 'revoke', first.relayKey.id, '--json', '--config', file], { secret: a.gw.secret });
  t.equal(revoked.code, 0, `keys revoke: ${revoked.stderr}`);
  t.match(await closedWithin(one.client.closed), { code: 4001, reason: /key revoked/ }, "the revoked key's tunnel on B closed at once");

  const second = await registerRelay(a, { workspace: 'ws1', name: 'away', agents: ['local-two'] });
  const two = await connectRelay({ url: b.url, key: second.relayKey.key, workspace: 'ws1', agents: [card('local-two')] });
  t.teardown(() => two.client.close());
  t.match(two.answer, { t: 'welcome' });
  const removed = await runCli(['relays', 'remove', 'away', '--workspace', 'ws1', '--config', file], { secret: a.gw.secret });
  t.equal(removed.code, 0, `relays remove: ${removed.stderr}`);
  t.match(await closedWithin(two.client.closed), { code: 1008, reason: /relay removed/ }, "the removed relay's tunnel on B closed at once");
});
