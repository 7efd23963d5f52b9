// A rolling upgrade on Redis: an instance of the version before the workspace task sets keeps writing tasks without
// their set entry after the newer instances built the sets. tasks/list on a newer instance misses them until the
// periodic index repair (redis.indexRepairMs, injected clock) adds them: one instance runs each pass.
import t from 'tap';
import { createClient } from 'redis';
import { ManualClock } from '../../src/runtime/clock.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { msgB, type TestGateway } from '../support/gateway.js';
import { createTaskAsOldInstance } from '../support/legacy-redis-writer.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';

const REPAIR_MS = 60_000;
/** tasks of a second workspace written the old way: more than one bounded step of the pass */
const MANY = 1_200;

t.test('tasks an older instance wrote after the sets were built are listed once the repair has run', async (t) => {
  const prefix = testPrefix('rolling');
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, { prefix, settings: { redis: { indexRepairMs: REPAIR_MS } }, clock });
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  t.teardown(() => raw.close());
  t.equal(await raw.exists(redisKeys(prefix).workspaceTasksBuilt), 1, 'the newer instances built the sets on open');

  const { key } = await a.key({ workspace: 'ws1' });
  const made = await a.rpc({ key, method: 'message/send', params: msgB('new instance', { metadata: { agentId: 'converse' } }) });
  const fresh = made.json.result.id as string;
  // the older instance, still running, takes these
  const old = ['old-waiting', 'old-done', 'old/with-slash'];
  for (const [i, id] of old.entries()) {
    const task = { ...sampleTask({ id, state: i === 1 ? 'completed' : 'input-required' }), workspaceId: 'ws1', seq: 1 };
    t.ok(await createTaskAsOldInstance({ client: raw, prefix, task }), `${id} written the old way`);
  }
  for (let i = 0; i < MANY; i += 100) {
    const ids = Array.from({ length: 100 }, (_, j) => `w2-${i + j}`);
    await Promise.all(
      ids.map((id) => createTaskAsOldInstance({ client: raw, prefix, task: { ...sampleTask({ id, state: 'completed' }), workspaceId: 'ws2', seq: 1 } })),
    );
  }

  const listed = async (gw: TestGateway) => {
    const r = await gw.rpc({ key, method: 'tasks/list', params: { pageSize: 100 } });
    return (r.json.result.tasks as Array<{ id: string }>).map((x) => x.id).sort();
  };
  t.strictSame(await listed(b), [fresh], "before the repair the older instance's tasks are missing from the listing");
  t.equal(await raw.exists(redisKeys(prefix).workspaceTasks('ws2')), 0, 'and ws2 has no set at all');

  clock.advance(REPAIR_MS);
  const added = [await a.gw.indexRepair?.idle(), await b.gw.indexRepair?.idle()];
  t.equal((added[0] ?? 0) + (added[1] ?? 0), old.length + MANY, 'one pass added every missing task');
  t.ok(added.includes(0), 'run by one of the two instances (the other found the period claimed)');

  for (const gw of [a, b]) t.strictSame(await listed(gw), [fresh, ...old].sort(), 'every task of ws1 is listed, on either instance');
  // ws2's set: what an instance from before the listing sets lists ws2 from
  const ws2 = await raw.sMembers(redisKeys(prefix).workspaceTasks('ws2'));
  t.equal(ws2.length, MANY, "ws2's tasks are in its set");
  t.ok(
    ws2.every((x) => x.startsWith('ws2/')),
    'and only those',
  );
});
