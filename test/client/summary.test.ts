// The result summary kept of a remote task: at most 500 characters counted as code points (an emoji is one, and is
// never cut in half), text first, other parts described by kind and size.
import t from 'tap';
import type { RemoteTask } from '../../src/protocol/connections.js';
import type { Part } from '../../src/protocol/model.js';
import { summarize } from '../../src/protocol/summary.js';

const TS = '2026-01-01T00:00:00.000Z';
const task = (o: { status?: Part[]; artifacts?: Part[][] }): RemoteTask => ({
  id: 'r-1',
  status: { state: 'completed', timestamp: TS, ...(o.status && { message: { role: 'agent', parts: o.status, messageId: 'm' } }) },
  artifacts: (o.artifacts ?? []).map((parts, i) => ({ artifactId: `a${i}`, index: i, parts })),
});
const text = (s: string): Part => ({ kind: 'text', text: s });
const codePoints = (s: string) => [...s].length;
/** a high surrogate not followed by a low one, or a low one not preceded by a high one */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

t.test('exactly 500 characters of emoji: counted as code points, the last one whole, an ellipsis says it was cut', async (t) => {
  const s = summarize(task({ artifacts: [[text('😀'.repeat(600))]] }));
  t.equal(codePoints(s), 500, '500 characters');
  t.equal(s.length, 499 * 2 + 1, '499 emoji (two UTF-16 units each) and the ellipsis');
  t.ok(s.endsWith('😀…'));
  t.notOk(LONE_SURROGATE.test(s), 'no surrogate pair split');
});

t.test('text of exactly 500 code points (more than 500 UTF-16 units) is kept whole', async (t) => {
  const full = `${'a'.repeat(498)}😀😀`;
  t.equal(full.length, 502);
  t.equal(summarize(task({ artifacts: [[text(full)]] })), full);
});

t.test('an emoji at the boundary: kept whole when it fits, left out (not halved) when it does not', async (t) => {
  const fits = summarize(task({ artifacts: [[text(`${'a'.repeat(498)}😀bb`)]] }));
  t.equal(fits, `${'a'.repeat(498)}😀…`);
  t.equal(codePoints(fits), 500);
  const straddles = summarize(task({ artifacts: [[text(`${'a'.repeat(499)}😀😀`)]] }));
  t.equal(straddles, `${'a'.repeat(499)}…`);
  t.notOk(LONE_SURROGATE.test(straddles));
  t.equal(codePoints(summarize(task({ artifacts: [[text('é'.repeat(2000))]] }))), 500, 'multi-byte UTF-8 text counts characters, not bytes');
});

t.test('text parts first (status message, then artifacts), other parts described by kind and size', async (t) => {
  const pdf = Buffer.alloc(12345, 7).toString('base64');
  const s = summarize(
    task({
      status: [text('all done'), { kind: 'data', data: { a: 1, b: 2, c: 3 } }],
      artifacts: [
        [{ kind: 'file', file: { name: 'report.pdf', mimeType: 'application/pdf', bytes: pdf } }, text('the report')],
        [
          { kind: 'file', file: { uri: 'https://files.example/x?sig=secret', mimeType: 'image/png' } },
          { kind: 'data', data: { only: true } },
        ],
      ],
    }),
  );
  t.equal(
    s,
    ['all done', 'the report', '[data, 3 keys]', '[file report.pdf, application/pdf, 12345 bytes]', '[file, image/png, by URI]', '[data, 1 key]'].join('\n'),
  );
  t.notMatch(s, /secret/, "a file's URI (it may be signed) is not shown");
});

t.test('a long text pushes the descriptions past the limit, and a custom limit is honoured', async (t) => {
  const s = summarize(task({ artifacts: [[text('x'.repeat(600)), { kind: 'data', data: {} }]] }));
  t.equal(codePoints(s), 500);
  t.notMatch(s, /\[data/);
  t.equal(summarize(task({ artifacts: [[text('abcdef')]] }), 4), 'abc…');
  t.equal(summarize(task({})), '', 'nothing to say: empty');
});
