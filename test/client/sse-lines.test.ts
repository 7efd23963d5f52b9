// The client's SSE reader: every kind of line end (LF, CR, CRLF), wherever the reads split the stream (a CRLF or a
// multi-byte character cut in two included), gives the same events.
import { Readable } from 'node:stream';
import t from 'tap';
import { readSse, type SseEvent } from '../../src/runtime/a2a-client/sse.js';

const STREAM = Buffer.from(': comment\r\ndata: one\r\n\r\nevent: e\rdata: tw\u00e9\rdata: lines\r\rid: 7\ndata: {"x":"\u{1F600}"}\n\ndata: unended', 'utf8');
const EXPECTED: SseEvent[] = [{ data: 'one' }, { data: 'tw\u00e9\nlines', event: 'e' }, { data: '{"x":"\u{1F600}"}', id: '7' }];

async function events(chunks: Buffer[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of readSse(Readable.from(chunks), 1_000)) out.push(ev);
  return out;
}

t.test('one read, every two-read split, and byte by byte: the same events', async (t) => {
  t.same(await events([STREAM]), EXPECTED);
  let same = 0;
  for (let at = 1; at < STREAM.length; at++) {
    const got = await events([STREAM.subarray(0, at), STREAM.subarray(at)]);
    if (JSON.stringify(got) === JSON.stringify(EXPECTED)) same++;
    else t.fail(`split at ${at}: ${JSON.stringify(got)}`);
  }
  t.equal(same, STREAM.length - 1, 'every split');
  t.same(await events([...STREAM].map((b) => Buffer.from([b]))), EXPECTED, 'byte by byte');
});

t.test('a line past the limit is refused, split or not', async (t) => {
  const long = Buffer.from(`data: ${'x'.repeat(1_500)}`);
  await t.rejects(events([long]), { code: 'bad_response', message: /larger than 1000 bytes/ });
  await t.rejects(events([long.subarray(0, 700), long.subarray(700)]), { code: 'bad_response' });
});
