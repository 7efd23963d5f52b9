// A remote's answer holding an integer written past ±(2^53 − 1) (in a data part) is refused as `bad_response` naming
// its path, as a caller's params are: JSON.parse read it as a double with other digits, which our caller was answered
// and the result store kept. Safe integers and floats (1e300) pass as sent. Real node:http remotes on loopback behind
// a real gateway, 0.3 and 1.0, plain and streamed.
import t from 'tap';
import type { Answer, Dialect } from '../support/card-server.js';
import { DIALECT_MATRIX, dialectStage } from '../support/remote-stage.js';

const WS = 'ws1';
/** the number the remote writes in its data part, as JSON text */
let literal = '1';

const BIG = '12345678901234567890';
const MARK = '"__number__"';

/** The remote's task, as JSON text with `literal` in its artifact's data part (written raw, not through a double). */
function taskText(dialect: Dialect): string {
  const task =
    dialect === '0.3'
      ? {
          kind: 'task',
          id: 't1',
          contextId: 'c1',
          status: { state: 'completed' },
          artifacts: [{ artifactId: 'a1', parts: [{ kind: 'data', data: { n: MARK } }] }],
        }
      : { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a1', parts: [{ data: { n: MARK } }] }] };
  return JSON.stringify(task).replace(JSON.stringify(MARK), literal);
}

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const result = dialect === '0.3' ? taskText(dialect) : `{"task":${taskText(dialect)}}`;
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${result}}`;
  if (!/stream/i.test(req.method)) return { status: 200, body };
  // 0.3 streams the task itself; 1.0 wraps it as its send answer does
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `data: ${body}\n\n` };
}

/** where each dialect's answer holds the task */
const REMOTES = DIALECT_MATRIX.map((r) => ({ ...r, at: r.dialect === '0.3' ? 'result' : 'result.task' }));

const stage = dialectStage(t, { workspace: WS, remotes: REMOTES, answer: (r, req) => answer(r.dialect, req), storeResults: true });

const send = stage.send;
const stored = async (connection: string) => (await stage.results(connection)).length;

for (const r of REMOTES) {
  const how = r.streaming ? 'streamed' : 'plain';
  t.test(`${r.dialect} ${how}: safe integers and floats pass as sent`, async (t) => {
    for (const [text, value] of [
      ['9007199254740991', 9007199254740991],
      ['-9007199254740991', -9007199254740991],
      ['1e300', 1e300],
      ['12345678901234567890.5', Number('12345678901234567890.5')],
    ] as const) {
      literal = text;
      const task = await send(r.name);
      t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
      t.equal(task?.artifacts?.[0]?.parts?.[0]?.data?.n, value, text);
    }
  });

  t.test(`${r.dialect} ${how}: an integer past 2^53 − 1 fails the turn naming its path; nothing is stored`, async (t) => {
    for (const text of [BIG, '-9007199254740993', '9007199254740992']) {
      const before = await stored(r.name);
      literal = text;
      const task = await send(r.name);
      t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 300));
      t.equal(
        task?.status?.message?.parts?.[0]?.text,
        `the remote's answer to ${r.dialect === '0.3' ? (r.streaming ? 'message/stream' : 'message/send') : r.streaming ? 'SendStreamingMessage' : 'SendMessage'} holds an integer past ±9007199254740991 (2^53 − 1) at ${r.at}.artifacts.0.parts.0.data.n: read as a double it would lose digits`,
        text,
      );
      t.equal(await stored(r.name), before, `${text}: no result kept`);
    }
  });
}
