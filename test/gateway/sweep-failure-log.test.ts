// A presence sweep (the scan that fails a dead instance's running tasks) that fails is logged as "instance sweep failed"
// with the store's error, not as a failed heartbeat: an operator must tell "this instance may be judged dead" from
// "dead instances' tasks stay running". Real gateways on real Redis, injected clock. The sweep fails by what Redis
// answers for real: the instance's Redis user may read everything but write only the meta hash its beats go to (an
// ACL slip an operator could make), so its beats are stored and its sweep's task write is refused (NOPERM).
import t from 'tap';
import { createClient } from 'redis';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Log } from '../../src/runtime/log.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';

const slow = (ms: number, steps: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps } }], metadata: { agentId: 'slow' } },
  configuration: { blocking: false },
});

/** Glob metacharacters in a prefix must match themselves in an ACL key pattern. */
const escapeGlob = (s: string): string => s.replace(/[\\*?[\]]/g, '\\$&');

t.test('a failed sweep logs "instance sweep failed" with the error, and no heartbeat failure', async (t) => {
  const prefix = testPrefix('sweep-log');
  const user = `a2a-sweep-${process.pid}-${Date.now()}`;
  const password = 'sweep-test-password';
  const admin = createClient({ url: REDIS_URL });
  await admin.connect();
  t.teardown(async () => {
    await admin.sendCommand(['ACL', 'DELUSER', user]);
    await admin.quit();
  });
  // at first the user may do everything (so the gateway starts as any does)
  await admin.sendCommand(['ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '~*', '&*', '+@all']);
  const url = new URL(REDIS_URL);
  url.username = user;
  url.password = password;

  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const log: Log = (msg, fields) => lines.push({ msg, fields });
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, {
    prefix,
    settings: { instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 } },
    clock,
    ids: ['gw-dead', 'gw-sweeper'],
    b: { redisUrl: url.toString(), log },
  });
  const { key } = await a.key();
  const running = await a.rpc({ key, method: 'message/send', params: slow(60_000, 2) });
  t.equal(running.json.result.status.state, 'working');
  const id = running.json.result.id as string;
  await a.gw.close(); // A goes away: its task stays stored as working, and A beats no more

  // B may now read every key of the prefix but write only the meta hash (and its expiry index) its beats go to
  const p = escapeGlob(prefix);
  await admin.sendCommand(['ACL', 'SETUSER', user, 'resetkeys', `%R~${p}*`, `~${p}meta`, `~${p}meta-expiry`]);
  const restrictedAt = clock.now();

  const sweepFailed = () => lines.find((l) => l.msg === 'instance sweep failed');
  for (let i = 0; i < 200 && !sweepFailed(); i++) {
    clock.advance(5_000);
    await new Promise((r) => setTimeout(r, 20));
  }
  const line = sweepFailed();
  t.ok(line, 'the failed sweep is logged as a sweep');
  t.match(String(line?.fields?.error), /NOPERM/, "with Redis's own error");
  t.notOk(
    lines.some((l) => l.msg === 'instance heartbeat failed'),
    'no heartbeat failure is logged: the beats were stored',
  );
  const beat = await b.gw.store.meta.get('instance-beat:gw-sweeper');
  t.ok(typeof beat === 'number' && beat > restrictedAt, `its beats went on being stored meanwhile (${String(beat)} > ${restrictedAt})`);

  // with its writes back, the next sweep fails the dead instance's task
  await admin.sendCommand(['ACL', 'SETUSER', user, 'resetkeys', '~*']);
  let state = '';
  for (let i = 0; i < 200 && state !== 'failed'; i++) {
    clock.advance(5_000);
    await new Promise((r) => setTimeout(r, 20));
    state = (await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state;
  }
  t.equal(state, 'failed', 'the next sweep, once it may write, fails the task');
  await b.close();
});
