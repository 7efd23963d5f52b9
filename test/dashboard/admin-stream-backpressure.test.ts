// A task's live view (the admin API's SSE) and a reader that stops reading: past streaming.maxBufferedBytes queued
// for it, the view ends with an error event, as an A2A stream does, and its slot (dashboard.maxStreamsPerKey) is free
// again, once; a reader that keeps up gets every summary of the same task, in order.
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { until } from '../support/a2a-client.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { readInChild } from '../support/sse-reader-process.js';

const chatty = fileURLToPath(new URL('../fixtures/agents/chatty.js', import.meta.url));
const EVENTS = 20_000;
const LIMIT = 2;
// the longest id an agent may have: each summary ~520 bytes, so a turn is ~10 MB per view, well past what the kernel's
// socket buffers hold for a reader that does not read (4 MiB at most by Linux's default tcp_wmem) and the default
// streaming.maxBufferedBytes (1 MiB) queued past them, which in turn leaves a reader that keeps up room for bursts
const AGENT = 'chatty-'.padEnd(256, 'x');

/** The whole SSE frames with data of what a reader received, parsed, with their ids (a cut-off last frame is left out). */
function frames(text: string): Array<{ id?: string; data: any }> {
  return text
    .split('\n\n')
    .slice(0, -1)
    .filter((f) => f.includes('data: '))
    .map((f) => {
      const id = /^id: (.*)$/m.exec(f)?.[1];
      return { ...(id !== undefined && { id }), data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) };
    });
}

/** A summary whose task waits for input: a view's first summary and the turn's last are its only such ones. */
const WAITING = '"state":"input-required"';

t.test('a live view whose reader stops reading is closed with an error event and frees its slot; a reader keeping up gets every summary', async (t) => {
  const tg = await startTestGateway({
    config: {
      // a budget the polling below cannot spend: a 429 here is the slot bound's
      dashboard: { enabled: true, maxStreamsPerKey: LIMIT, limits: { perMinute: 1_000_000, perHour: 10_000_000 } },
      agents: [{ id: AGENT, name: 'Chatty', kind: 'module', entry: chatty, default: true, options: { events: EVENTS } }],
    },
  });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const first = await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('hi') });
  t.equal(first.json.result.status.state, 'input-required', 'the task waits for input: its views stay open');
  const taskId: string = first.json.result.id;
  const path = `/api/admin/tasks/${taskId}/events`;
  const headers = { Authorization: `Bearer ${admin.key}` };

  // the slow reader: a raw socket that reads the view's opening and first summary, then stops reading
  const port = Number(new URL(tg.url).port);
  const slow: Socket = connect(port, '127.0.0.1');
  t.teardown(() => slow.destroy());
  let slowText = '';
  let slowBytes = 0;
  slow.on('data', (d: Buffer) => {
    slowBytes += d.length;
    slowText += d.toString('utf8');
  });
  slow.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin.key}\r\n\r\n`);
  await until(() => slowText.includes('\nid: 1\n'), 'the slow reader sees its first summary');
  t.match(slowText, /^HTTP\/1\.1 200/, 'the view opened');
  slow.pause();

  // the reader that keeps up: in a process of its own, as a dashboard page is. In this one it could not read while the
  // gateway writes a burst of summaries (a store commit releases thousands of events at once under load), and the
  // gateway would rightly cut it off as too far behind
  const reader = { url: tg.url + path, authorization: headers.Authorization, marker: WAITING };
  const kept = await readInChild(t, reader);
  t.equal(kept.status, 200, 'a second view opens');
  await until(() => kept.sawFirst, 'the reader keeping up sees its first summary');
  t.equal((await fetch(tg.url + path, { headers })).status, 429, 'both slots are held');

  // a turn of many working updates: one summary each to both views
  const turn = tg.rpc({ method: 'message/send', key: admin.key, params: msgB('go', { taskId }) });

  // the slow view is cut off: its slot is free again, and only that one. The view opened again is read as the turn
  // goes on, or it too would fall behind and be cut off
  await readInChild(t, { ...reader, retry: true, timeoutMs: 60_000 });
  slow.resume();
  const third = await fetch(tg.url + path, { headers });
  t.equal(third.status, 429, 'one slot freed, not more: the bound holds again');
  if (third.status === 429) t.equal((await third.json()).setting, 'dashboard.maxStreamsPerKey', 'refused by the slot bound, not a call budget');
  else await third.body?.cancel();
  const second = await turn;
  t.equal(second.json.result.status.state, 'input-required', 'the turn ended waiting for input again');
  const messages: number = second.json.result.history.length;

  // what the slow reader was sent: everything up to the cut, then the error event, then the end of the response (the
  // last, empty chunk; the connection itself is kept alive)
  await until(() => slowText.endsWith('\r\n0\r\n\r\n'), "the slow view's response ends");
  const got = frames(slowText.slice(slowText.indexOf('\r\n\r\n') + 4));
  const last = got[got.length - 1]!;
  t.match(last.data, { error: 'backpressure', setting: 'streaming.maxBufferedBytes' }, 'the view ends with an error event');
  t.match(last.data.message, /fell too far behind/, 'saying why');
  const summaries = got.slice(0, -1);
  t.strictSame(
    summaries.map((f) => Number(f.id)),
    summaries.map((_, i) => i + 1),
    'every summary up to the cut reached it, in order',
  );

  // the reader that kept up: every summary, no gap, to the turn's last (its second waiting one); a view cut off ends the wait
  // at once, and the checks below say so
  await until(() => kept.count >= 2 || kept.done, 'the last summary arrives, or the view ends', 60_000);
  const all = frames(await kept.text());
  t.match(all[all.length - 1]!.data, { state: 'input-required', messages }, "the turn's last summary");
  t.notOk(kept.done, 'its view is still open');
  t.notOk(
    all.some((f) => 'error' in f.data),
    'no error event',
  );
  t.strictSame(
    all.map((f) => Number(f.id)),
    all.map((_, i) => i + 1),
    'ids 1..n with no gap',
  );
  t.ok(all.length > summaries.length + 1, `past the slow reader's cut (${all.length} summaries; it had ${summaries.length}, ${slowBytes} bytes)`);
});
