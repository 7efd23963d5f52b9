// Resubscribing with a Last-Event-ID at or past a task's last event: a finished task's stream ends (nothing is left to
// replay), an id the task never reached is refused naming the header, and only a plain decimal is an event id.
import t from 'tap';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse, type SseClient, type SseFrame } from '../support/sse.js';

/** Every frame up to the stream's end, or 'still open' when it has not ended within `ms` (a hung stream). */
async function allOrHung(s: SseClient, ms = 3000): Promise<SseFrame[] | 'still open'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'still open'>((r) => (timer = setTimeout(() => r('still open'), ms)));
  try {
    return await Promise.race([s.all(), hung]);
  } finally {
    clearTimeout(timer);
    s.close();
  }
}

t.test('Last-Event-ID at or past the last event of a task', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const frames = await (await openSse({ url: gw.url, key, method: 'message/stream', params: msgB('hi') })).all();
  const taskId: string = frames[0]!.data.result.id;
  const lastId = frames[frames.length - 1]!.id!;
  t.equal(frames[frames.length - 1]!.data.result.final, true, 'the task finished');
  const resubscribe = (lastEventId: string) =>
    openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': lastEventId } });

  t.test('the final event already seen: the stream ends with nothing to replay', async (t) => {
    t.same(await allOrHung(await resubscribe(lastId)), [], 'an empty stream that ends, not one left open');
  });

  for (const past of [String(Number(lastId) + 1), '99999', '1e21']) {
    t.test(`an id the task never reached (${past}): -32602 naming Last-Event-ID`, async (t) => {
      const got = await allOrHung(await resubscribe(past));
      t.not(got, 'still open', 'the stream does not hang');
      const err = (got as SseFrame[])[0]?.data?.error;
      t.equal(err?.code, -32602);
      t.equal(err?.data?.path, 'Last-Event-ID');
    });
  }

  t.test('only a plain decimal is an event id', async (t) => {
    for (const odd of ['0x1', '1.0', '+1', '-0']) {
      const [first] = (await allOrHung(await resubscribe(odd))) as SseFrame[];
      t.equal(first?.data?.error?.code, -32602, `'${odd}' is refused`);
    }
  });

  t.test('an id before the end still replays exactly the rest', async (t) => {
    const rest = (await allOrHung(await resubscribe(frames[0]!.id!))) as SseFrame[];
    t.strictSame(
      rest.map((f) => f.id),
      frames.slice(1).map((f) => f.id),
    );
  });
});
