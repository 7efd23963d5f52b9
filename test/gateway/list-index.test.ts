// tasks/list through the real server on both engines, read from the listing index: a page reads its own tasks and no
// others (a damaged task further down is never met), paging while sends create tasks skips none that stayed, repeats
// none and keeps each page newest first, and retention takes a swept task out of the listing, its totals and every filter's index.
import t, { type Test } from 'tap';
import type { Task } from '../../src/protocol/model.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { damageStoredTask, listingEngines, stoppableGateway } from '../support/listing-stage.js';
import { cleanupPrefix, REDIS_URL } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';

const T0 = Date.UTC(2026, 5, 1);
const ENGINES = listingEngines({ prefix: 'list-index' });

const listed = (tasks: Array<{ id: string; status: { timestamp: string } }>) => tasks.map((x) => x.id);

for (const engine of ENGINES) {
  t.test(`${engine.name}: a page reads its own tasks only: a damaged task further down is never met`, async (t: Test) => {
    const config = engine.config();
    const lines: string[] = [];
    // one data dir for both servers below
    const st = await stoppableGateway(t, { config, dir: 'list-index' });
    const { key } = await st.gw.key();
    const n = 2_000;
    const make = (i: number): Task => {
      // finished: start-up recovery reads only unfinished tasks, so nothing but a listing could meet the damaged one
      const base = sampleTask({ id: `t${String(i).padStart(4, '0')}`, state: 'completed' });
      return { ...base, workspaceId: 'ws1', status: { ...base.status, timestamp: new Date(T0 + i * 1_000).toISOString() }, seq: 1 };
    };
    for (let i = 0; i < n; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => st.gw.gw.store.tasks.create(make(i + j))));
    // the oldest task's record is damaged where it is stored, after it was indexed (with the server stopped)
    const gw = await st.restart({
      meanwhile: () => damageStoredTask({ config, dataDir: st.dataDir, workspace: 'ws1', id: 't0000' }),
      log: (msg) => lines.push(msg),
    });

    const answer = (await gw.rpc({ method: 'tasks/list', key, params: { pageSize: 50 } })).json;
    t.notOk(answer.error, 'answered');
    const page = answer.result;
    t.strictSame(
      listed(page.tasks),
      Array.from({ length: 50 }, (_, i) => make(n - 1 - i).id),
      'the newest 50',
    );
    t.equal(page.totalSize, n, 'the total is the index count: the damaged record is not read to count it');
    t.ok(page.nextPageToken, 'a token to the next page');
    t.notOk(
      lines.some((l) => l.startsWith('damaged stored record')),
      'the damaged task, 1,950 places further down, was not read',
    );
    // page on to the end: each page reads its own 50
    let last = page;
    for (let pages = 1; last.nextPageToken; pages++) {
      last = (await gw.rpc({ method: 'tasks/list', key, params: { pageSize: 50, pageToken: last.nextPageToken } })).json.result;
      if (pages < n / 50 - 1) t.equal(last.tasks.length, 50, `page ${pages}`);
    }
    t.equal(last.tasks.length, 49, 'the last page leaves the damaged task out');
    t.ok(
      lines.some((l) => l.startsWith('damaged stored record')),
      'and reports it, as a scan did',
    );
  });

  t.test(`${engine.name}: paging while sends create tasks: every page newest first, none repeated, none that stayed skipped`, async (t: Test) => {
    const config = engine.config();
    const clock = new ManualClock(T0);
    const gw = await startTestGateway({ config, clock, timers: clock });
    t.teardown(async () => {
      await gw.close();
      if (config.redisPrefix) await cleanupPrefix(REDIS_URL, config.redisPrefix);
    });
    const { key } = await gw.key();
    const before: string[] = [];
    for (let i = 0; i < 60; i++) {
      clock.advance(i % 3 === 0 ? 0 : 1_000); // some equal status times: the tie order by id
      before.push((await gw.rpc({ key, method: 'message/send', params: msgB(`before ${i}`) })).json.result.id);
    }
    const seen = new Set<string>();
    let token = '';
    for (let pages = 0; pages < 20; pages++) {
      clock.advance(1_000);
      // a send and the page at once: the new task lands on top of the listing, pushing the rest down
      const [r] = await Promise.all([
        gw.rpc({ key, method: 'ListTasks', params: { pageSize: 7, ...(token && { pageToken: token }) }, headers: { 'A2A-Version': '1.0' } }),
        gw.rpc({ key, method: 'message/send', params: msgB(`meanwhile ${pages}`) }),
      ]);
      const tasks = r.json.result.tasks as Array<{ id: string; status: { timestamp: string } }>;
      const times = tasks.map((x) => Date.parse(x.status.timestamp));
      t.ok(
        times.every((time, i) => i === 0 || time <= times[i - 1]!),
        `page ${pages} newest first`,
      );
      t.strictSame(
        listed(tasks).filter((id) => seen.has(id)),
        [],
        `page ${pages} repeats no task of an earlier page`,
      );
      for (const id of listed(tasks)) seen.add(id);
      token = r.json.result.nextPageToken;
      if (!token) break;
    }
    t.strictSame(
      before.filter((id) => !seen.has(id)),
      [],
      'every task from before was on a page',
    );
    const all = (await gw.rpc({ key, method: 'tasks/list', params: { pageSize: 100 } })).json.result;
    t.equal(all.totalSize, all.tasks.length, 'once the sends are over the listing is whole');
    t.ok(all.totalSize > before.length);
  });

  t.test(`${engine.name}: retention takes a swept task out of the listing, its total and every filter`, async (t: Test) => {
    const TTL = 60_000;
    const config = { ...engine.config(), retention: { taskTtlMs: TTL, sweepIntervalMs: 10_000 } };
    const clock = new ManualClock(Date.now());
    const gw = await startTestGateway({ config, clock, timers: clock });
    t.teardown(async () => {
      await gw.close();
      if (config.redisPrefix) await cleanupPrefix(REDIS_URL, config.redisPrefix);
    });
    const { key } = await gw.key();
    const send = async (text: string, agentId?: string) =>
      (await gw.rpc({ key, method: 'message/send', params: msgB(text, agentId ? { metadata: { agentId } } : {}) })).json.result;
    const old = [await send('old one'), await send('old two')];
    clock.advance(TTL / 2);
    const recent = await send('recent');
    const waiting = await send('waiting', 'converse');
    t.equal(waiting.status.state, 'input-required');
    const list = async (params: Record<string, unknown>) => (await gw.rpc({ key, method: 'tasks/list', params })).json.result;
    t.equal((await list({})).totalSize, 4);

    clock.advance(TTL / 2 + 10_000);
    await gw.gw.retention.idle();
    t.equal(await gw.gw.retention.sweep(), 2, 'a sweep past their age deletes the two old tasks');
    const left = await list({});
    t.strictSame(listed(left.tasks).sort(), [recent.id, waiting.id].sort());
    t.equal(left.totalSize, 2);
    for (const x of old) {
      for (const params of [{ contextId: x.contextId }, { state: 'completed' }, { contextId: x.contextId, state: 'completed' }]) {
        const r = await list(params);
        t.notOk(listed(r.tasks).includes(x.id), `${JSON.stringify(params)}: gone`);
        t.equal(r.totalSize, r.tasks.length, `${JSON.stringify(params)}: the total counts only what is left`);
      }
    }
    t.equal((await list({ state: 'completed' })).totalSize, 1, 'the recent completed one stays');
  });
}
