// Keys that differ only in lone surrogates, end to end. A remote's answer is read with each lone surrogate made U+FFFD
// (keys too), so `"\ud800"` and `"\udc00"` in one of its objects are one key to us: that is a key named twice, and the
// turn fails naming it (before, one of the two was dropped without a word). A caller's request is read by JSON.parse,
// which keeps them apart: no repeat there, but params holding a lone surrogate are refused (-32602 naming the path),
// and a key JSON.parse does keep once (a raw and an escaped U+FFFD) is -32600 naming it. Real node:http remotes on
// loopback behind a real gateway, 0.3 and 1.0, plain and streamed.
import t from 'tap';
import type { Answer, Dialect } from '../support/card-server.js';
import { DIALECT_MATRIX, dialectStage } from '../support/remote-stage.js';

/** the task a remote answers, its metadata as the text `meta` */
const task03 = (meta: string) => `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},"metadata":${meta}}`;
const task10 = (meta: string) => `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"metadata":${meta}}}`;

let meta = '{}';

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${dialect === '0.3' ? task03(meta) : task10(meta)}}`;
  if (!/stream/i.test(req.method)) return { status: 200, body };
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `data: ${body}\n\n` };
}

const stage = dialectStage(t, { workspace: 'ws1', remotes: DIALECT_MATRIX, answer: (r, req) => answer(r.dialect, req) });

for (const r of DIALECT_MATRIX) {
  const how = `${r.dialect} ${r.streaming ? 'streamed' : 'plain'}`;
  const m = r.dialect === '0.3' ? (r.streaming ? 'message/stream' : 'message/send') : r.streaming ? 'SendStreamingMessage' : 'SendMessage';
  const at = r.dialect === '0.3' ? 'result.metadata' : 'result.task.metadata';

  t.test(`${how}: keys differing only in lone surrogates are a key named twice; the turn fails naming it`, async (t) => {
    for (const keys of ['"\\ud800":1,"\\udc00":2', '"\\udfff":1,"\uFFFD":2', '"x":0,"a\\ud83db":1,"a\\ude00b":2']) {
      meta = `{${keys}}`;
      const task = await stage.send(r.name);
      t.equal(task?.status?.state, 'failed', `${keys}: failed`);
      t.match(
        task?.status?.message?.parts?.[0]?.text,
        new RegExp(`^the remote's answer to ${m} names the key at ${at}\\.a?\uFFFDb? twice in one object`),
        `${keys}: names the key as it was read`,
      );
    }
  });

  t.test(`${how}: keys that stay apart once read are taken`, async (t) => {
    for (const keys of ['"\\ud83d\\ude00":1,"\\ude00\\ud83d":2', '"a\\ud800":1,"b\\ud800":2', '"\uFFFD\uFFFD\uFFFD":1,"\\ud800":2']) {
      meta = `{${keys}}`;
      const task = await stage.send(r.name);
      t.equal(task?.status?.state, 'completed', `${keys}: ${JSON.stringify(task?.status).slice(0, 300)}`);
    }
  });
}

t.test("a caller's request: a repeat JSON.parse makes is -32600 naming it; lone surrogates are -32602 naming the path", async (t) => {
  const send = (metadata: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-${Math.random()}","parts":[{"kind":"text","text":"hi"}],"metadata":${metadata}}}}`;
  const twice = await stage.ours.rpc({ key: stage.key, body: send('{"\uFFFD":1,"\\ufffd":2}') });
  t.equal(twice.json.error?.code, -32600, 'a raw and an escaped U+FFFD: -32600');
  t.equal(twice.json.error?.data?.field, 'params.message.metadata.\uFFFD', 'naming the key');
  t.match(twice.json.error?.message, /is given twice in params\.message\.metadata/);
  const lone = await stage.ours.rpc({ key: stage.key, body: send('{"\\ud800":1,"\\udc00":2}') });
  t.equal(lone.json.error?.code, -32602, 'two lone surrogates (two keys to JSON.parse): -32602, as any lone surrogate');
  t.equal(lone.json.error?.data?.path, 'params.message.metadata.\uD800', 'naming the first');
});
