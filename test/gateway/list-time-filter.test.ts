// The listing's `statusTimestampAfter` (tasks/list and 1.0's ListTasks) is an RFC 3339 time with a zone, read strictly:
// anything else is -32602 naming the field. Before, whatever Date.parse read was taken: "1" was the year 2001, Feb 30
// was Mar 2 (so a task of Mar 1 was silently left out), a time without a zone was read in the server's own zone.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const V1 = { 'A2A-Version': '1.0' };

t.test('statusTimestampAfter: only RFC 3339 times with a zone, in both listings', async (t) => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
  const gw = await startTestGateway({ clock, timers: clock });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task of Mar 1, 12:00') });
  t.equal(made.json.result?.status.state, 'completed');

  const listings = [
    { name: 'tasks/list', list: (after: string) => gw.rpc({ key, method: 'tasks/list', params: { statusTimestampAfter: after } }) },
    { name: 'ListTasks', list: (after: string) => gw.rpc({ key, method: 'ListTasks', params: { statusTimestampAfter: after }, headers: V1 }) },
  ];
  const refused = [
    '1',
    '2026',
    '2026-02-30T00:00:00Z',
    '2026-03-01T11:00:00',
    '2026-03-01 11:00:00Z',
    'Mar 1 2026 11:00 GMT',
    '2026-03-01T24:00:00Z',
    '2026-03-01T11:00:00+25:00',
  ];
  for (const { name, list } of listings) {
    for (const after of refused) {
      const r = await list(after);
      t.equal(r.json.error?.code, -32602, `${name} ${JSON.stringify(after)}: -32602`);
      const path = Array.isArray(r.json.error?.data) ? r.json.error.data[0].metadata.path : r.json.error?.data?.path;
      t.equal(path, 'params.statusTimestampAfter', `${name} ${JSON.stringify(after)}: names the field`);
      t.match(r.json.error?.message, /RFC 3339 time with a zone/);
    }
    const taken: Array<[string, number]> = [
      ['2026-03-01T11:00:00Z', 1],
      ['2026-03-01T12:30:00+01:00', 1],
      ['2026-02-28T23:59:59.999999999z', 1],
      ['2026-03-01t12:00:00.001Z', 0],
      ['2026-03-01T07:00:00.001-05:00', 0],
    ];
    for (const [after, n] of taken) {
      const r = await list(after);
      t.equal(r.json.result?.tasks?.length, n, `${name} ${after}: ${n} task(s)`);
    }
  }
});
