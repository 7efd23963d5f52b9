// The path of a task's changes to the store: a blocking send's quick task is written once with every event, a task
// that takes longer than tasks.firstWriteHoldMs is stored as running when the hold ends, and other sends write at once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { openSse } from '../support/sse.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';

const slowMsg = (ms: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps: 2 } }], metadata: { agentId: 'slow' } },
});

/** The slow agent on the real worker runner, added as `slow-watched` and wrapped to tell when its turn has begun. */
function watchedSlow(gw: TestGateway) {
  const slow = gw.gw.agents.find('ws1', 'slow')!;
  let began: () => void = () => undefined;
  const turnBegan = new Promise<void>((r) => (began = r));
  gw.gw.agents.add({
    spec: { ...slow.spec, id: 'slow-watched', workspace: 'ws1', entry: 'slow' },
    runner: {
      run: (turn) => {
        began();
        return slow.runner.run(turn);
      },
    },
  });
  const watched = slowMsg(60_000);
  watched.message.metadata.agentId = 'slow-watched';
  return { watched, turnBegan };
}

t.test('a quick blocking task keeps every event of its life, in order, from seq 1', async (t) => {
  for (const firstWriteHoldMs of [100, 0]) {
    const gw = await startTestGateway({ config: { tasks: { firstWriteHoldMs } } });
    t.teardown(() => gw.close());
    const { key } = await gw.key();
    const sent = await gw.rpc({ method: 'message/send', key, params: msgB('hello', { metadata: { agentId: 'echo' } }) });
    t.equal(sent.json.result.status.state, 'completed', `hold ${firstWriteHoldMs}: completed`);
    const stored = await gw.gw.store.tasks.get('ws1', sent.json.result.id);
    t.equal(stored?.status.state, 'completed', `hold ${firstWriteHoldMs}: what was acknowledged is stored`);
    const events = await gw.gw.store.events.after(`ws1/${sent.json.result.id}`, 0);
    t.same(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      `hold ${firstWriteHoldMs}: events numbered 1..n with no gap`,
    );
    t.same(
      events.map((e) => (e.kind === 'status' ? e.status.state : e.kind)),
      ['submitted', 'working', 'artifact', 'completed'],
      `hold ${firstWriteHoldMs}: every change of the task is an event`,
    );
    t.equal(stored?.seq, events.length, 'the record carries the last seq');
  }
});

t.test('a blocking task still running when the hold ends is stored as running then; a non-blocking one at once', async (t) => {
  const clock = new ManualClock(Date.now());
  const gw = await startTestGateway({ clock, timers: clock, config: { tasks: { firstWriteHoldMs: 500 } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const running = async () => (await gw.gw.store.tasks.listByState(['submitted', 'working'])).map((x) => x.id);

  const { watched, turnBegan } = watchedSlow(gw);
  const blocking = gw.rpc({ method: 'message/send', key, params: watched });
  await turnBegan;
  t.same(await running(), [], 'nothing stored during the hold, though the turn runs');
  clock.advance(500);
  let ids: string[] = [];
  // the write is under way now; wait for the store to have it (I/O, not the clock)
  for (let i = 0; i < 500 && ids.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
    ids = await running();
  }
  t.equal(ids.length, 1, 'stored as running once the hold ended');
  const canceled = await gw.rpc({ method: 'tasks/cancel', key, params: { id: ids[0] } });
  t.equal(canceled.json.result.status.state, 'canceled');
  t.equal((await blocking).json.result.status.state, 'canceled', 'the blocking send answers with the end');

  const nb = await gw.rpc({ method: 'message/send', key, params: { ...slowMsg(60_000), configuration: { blocking: false } } });
  t.equal(
    (await gw.gw.store.tasks.get('ws1', nb.json.result.id))?.status.state,
    nb.json.result.status.state,
    'a non-blocking send is stored before it is answered',
  );

  const stream = await openSse({ url: gw.url, key, method: 'message/stream', params: slowMsg(60_000) });
  let first = await stream.next();
  while (first && first.data === undefined) first = await stream.next();
  t.ok(first, 'the stream sends its first event');
  const streamed = first!.data.result;
  t.ok((await gw.gw.store.tasks.get('ws1', streamed.id)) !== undefined, "a stream's task is stored before its first event");
  stream.close();
  await gw.rpc({ method: 'tasks/cancel', key, params: { id: nb.json.result.id } });
  await gw.rpc({ method: 'tasks/cancel', key, params: { id: streamed.id } });
});

t.test('a drain during a hold waits for no timer: the running task is stored, and recovered on the next start', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-hold-drain-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(Date.now());
  const gw = await startTestGateway({ dataDir, clock, timers: clock, config: { tasks: { firstWriteHoldMs: 60_000 } } });
  const { key } = await gw.key();
  const { watched, turnBegan } = watchedSlow(gw);
  const answer = gw.rpc({ method: 'message/send', key, params: watched }).catch(() => undefined);
  await turnBegan;
  // the clock never moves: a drain that waited for the hold would never end
  const closed = await Promise.race([gw.close().then(() => true), new Promise((r) => setTimeout(() => r(false), 20_000))]);
  t.equal(closed, true, 'close() ends without the hold running out');
  await answer;

  const again = await startTestGateway({ dataDir });
  t.teardown(() => again.close());
  const stored = await again.gw.store.tasks.listByState(['failed']);
  t.equal(stored.length, 1, 'the task was stored when the drain began, and failed by recovery on the next start');
  t.match(JSON.stringify(stored[0]?.status.message), /gateway_restart/);
});
