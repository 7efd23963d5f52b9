// Keys stored by an earlier version, with values today's bounds refuse at creation (rate limits past 10^9, more than
// 256 agents, a workspace id with '/' or '*'), written straight to the store as that version wrote them. They still
// authenticate and list; rotating one keeps its values exactly, except a workspace id a key may no longer name,
// which is refused saying what to do instead.
import t from 'tap';
import type { KeyRecord } from '../../src/protocol/records.js';
import { hashKey, mintKey } from '../../src/runtime/keys.js';
import { runCli } from '../support/child-server.js';
import { msgB, startTestGateway, TEST_SECRET } from '../support/gateway.js';
import { sampleKey } from '../support/store-records.js';

t.setTimeout(300_000);

const SECRET = Buffer.from(TEST_SECRET);

/** A key record as an earlier version stored it, and the key that authenticates as it. */
function oldKey(o: { id: string; workspaceId?: string; limits?: KeyRecord['limits']; agents?: string[] }): { key: string; rec: KeyRecord } {
  const key = mintKey();
  const base = sampleKey({ id: o.id, workspaceId: o.workspaceId ?? 'ws1', hash: hashKey(SECRET, key) });
  const rec: KeyRecord = { ...base, trust: 'admin', scopes: [], expiresAt: null, rotatedFrom: undefined, agents: o.agents ?? [], limits: o.limits };
  return { key, rec };
}

t.test('old keys past the bounds of today: they work, list, and rotate keeping their values; a workspace id no key may name is refused', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const cli = (args: string[]) => runCli([...args, '--data-dir', gw.dataDir], { env: { A2A_SECRET: TEST_SECRET } });

  const limits = { perMinute: 5_000_000_000, perHour: 9_000_000_000_000 };
  const agents = Array.from({ length: 300 }, (_, i) => (i === 0 ? 'echo' : `agent-${i}`));
  const big = oldKey({ id: 'key_old_limits', limits });
  const many = oldKey({ id: 'key_old_agents', agents });
  const slash = oldKey({ id: 'key_old_slash', workspaceId: 'team/a' });
  const star = oldKey({ id: 'key_old_star', workspaceId: '*' });
  for (const k of [big, many, slash, star]) await gw.gw.store.keys.put(k.rec);

  const sent = await gw.rpc({ key: big.key, method: 'message/send', params: msgB('still here') });
  t.equal(sent.json.result?.status?.state, 'completed', `the key with limits past 10^9 still authenticates: ${JSON.stringify(sent.json).slice(0, 200)}`);
  const listed = await cli(['keys', 'list', '--json']);
  t.equal(listed.code, 0, `keys list reads them: ${listed.stderr}`);

  const rotated = await cli(['keys', 'rotate', big.rec.id, '--json']);
  t.equal(rotated.code, 0, `rotating the key with big limits works: ${rotated.stderr}`);
  const made = JSON.parse(rotated.stdout || '{}');
  const newRec = await gw.gw.store.keys.get(made.id);
  t.same(newRec?.limits, limits, 'its limits are kept exactly (nothing clamped)');
  t.equal(newRec?.rotatedFrom, big.rec.id);
  const viaNew = await gw.rpc({ key: made.key, method: 'message/send', params: msgB('new key') });
  t.equal(viaNew.json.result?.status?.state, 'completed', 'the new key works');

  const rotatedMany = await cli(['keys', 'rotate', many.rec.id, '--json']);
  t.equal(rotatedMany.code, 0, `rotating the key with 300 agents works: ${rotatedMany.stderr}`);
  t.same((await gw.gw.store.keys.get(JSON.parse(rotatedMany.stdout || '{}').id))?.agents, agents, 'its agents are kept exactly');

  const before = (await gw.gw.store.keys.list()).length;
  for (const [k, why] of [
    [slash, /workspace id has no "\/"/],
    [star, /workspace id is not "\*"/],
  ] as const) {
    const r = await cli(['keys', 'rotate', k.rec.id]);
    t.not(r.code, 0, `${k.rec.workspaceId}: rotate is refused`);
    t.match(r.stderr, /workspace/, `${k.rec.workspaceId}: the message names the field`);
    t.match(r.stderr, why, `${k.rec.workspaceId}: and why: ${r.stderr.trim()}`);
    t.match(r.stderr, new RegExp(`keys create --workspace .*keys revoke ${k.rec.id}`), `${k.rec.workspaceId}: and how to fix it`);
  }
  t.equal((await gw.gw.store.keys.list()).length, before, 'the refused rotations made no key');
});
