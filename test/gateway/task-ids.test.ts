// The ids the gateway picks for a new task and its context: UUIDv7s of the injected clock, so that the store's keys of
// one commit's new tasks sit side by side (docs/decisions.md, "Task and context ids are time-ordered").
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';

t.test('the ids the gateway picks for a new task and context are UUIDv7s of the injected clock, in creation order', async (t) => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const gw = await startTestGateway({ clock, timers: clock });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const msOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  const first = (await gw.rpc({ key, method: 'message/send', params: msgB('first') })).json.result;
  clock.advance(5);
  const second = (await gw.rpc({ key, method: 'message/send', params: msgB('second') })).json.result;
  for (const [name, task] of [
    ['first', first],
    ['second', second],
  ] as const) {
    t.match(task?.id, V7, `${name}: the task id is a UUIDv7`);
    t.match(task?.contextId, V7, `${name}: the context id is a UUIDv7`);
  }
  t.equal(msOf(first.id), Date.parse('2026-03-01T12:00:00Z'), 'the task id carries the clock time of its creation');
  t.equal(msOf(second.id), Date.parse('2026-03-01T12:00:00.005Z'), 'the later task, the later time');
  t.ok(first.id < second.id, 'the earlier task id sorts first');
});
