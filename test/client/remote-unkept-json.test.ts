// What JSON.parse would change without a word in a remote's JSON is refused wherever the client reads it, naming the
// path: a key named twice (JSON.parse keeps the last) or an integer past ±(2^53 − 1) (read as a double with other
// digits) in a JSON-RPC error object, in a result, and in the Agent Card. An error's `data` is never read (nothing of
// it reaches a caller), so the remote's error stands whatever it holds. Real node:http remotes on loopback behind a
// real gateway, 0.3 and 1.0, plain and streamed; what our caller sees is the failed task's message.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { remoteCard, type Answer, type CardServer, type Dialect } from '../support/card-server.js';
import type { TestGateway } from '../support/gateway.js';
import { DIALECT_MATRIX, dialectRemotes, remoteStage, sendGo, type StagedRemote } from '../support/remote-stage.js';

const WS = 'ws1';
const BIG = '12345678901234567890';

/** the remote's JSON-RPC answer as text, `ID` standing for the request's id; a task of the dialect by default */
let answerText: ((d: Dialect) => string) | undefined;

const task03 = '{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}}';
const task10 = '{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}';
const okText = (d: Dialect) => `{"jsonrpc":"2.0","id":ID,"result":${d === '0.3' ? task03 : task10}}`;

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const body = (answerText ?? okText)(dialect).replace('ID', JSON.stringify(req.id));
  if (!/stream/i.test(req.method)) return { status: 200, body };
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `data: ${body}\n\n` };
}

const methodOf = (r: { dialect: Dialect; streaming: boolean }) =>
  r.dialect === '0.3' ? (r.streaming ? 'message/stream' : 'message/send') : r.streaming ? 'SendStreamingMessage' : 'SendMessage';

/** cards as text (`base` the card server): each case its own remote, so no cached card stands in for it */
const CARDS: Record<string, (base: string) => string> = {
  cardint: (base) =>
    JSON.stringify({ ...remoteCard({ base, name: 'cardint', dialect: '0.3', streaming: false }), build: 0 }).replace('"build":0', `"build":${BIG}`),
  carddup: (base) =>
    JSON.stringify(remoteCard({ base, name: 'carddup', dialect: '0.3', streaming: false })).replace('"url":', `"url":"http://127.0.0.1:1/elsewhere","url":`),
  cardok: (base) => JSON.stringify({ ...remoteCard({ base, name: 'cardok', dialect: '0.3', streaming: false }), build: 9007199254740991 }),
};

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());

t.before(async () => {
  const cardRemotes: StagedRemote[] = Object.entries(CARDS).map(([name, card]) => ({
    name,
    card: () => card(s.url),
    answer: (_h, body) => ({ status: 200, body: okText('0.3').replace('ID', JSON.stringify(JSON.parse(body).id)) }),
  }));
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [...dialectRemotes(DIALECT_MATRIX, { base: () => s.url, answer: (r, req) => answer(r.dialect, req) }), ...cardRemotes],
  }));
});

t.beforeEach(() => {
  answerText = undefined;
});

/** the failed task's message our caller reads (the turn's error) */
async function failure(agentId: string): Promise<string | undefined> {
  const task = await sendGo({ ours, key }, agentId);
  if (task?.status?.state !== 'failed') return `not failed: ${JSON.stringify(task).slice(0, 300)}`;
  return task.status.message?.parts?.[0]?.text;
}

const errorText = (error: string) => () => `{"jsonrpc":"2.0","id":ID,"error":${error}}`;

for (const r of DIALECT_MATRIX) {
  const how = `${r.dialect} ${r.streaming ? 'streamed' : 'plain'}`;
  const m = methodOf(r);

  t.test(`${how}: an error code past 2^53 − 1 fails the turn naming error.code, not rounded into the message`, async (t) => {
    answerText = errorText(`{"code":${BIG},"message":"boom"}`);
    const text = await failure(r.name);
    t.equal(text, `the remote's answer to ${m} holds an integer past ±9007199254740991 (2^53 − 1) at error.code: read as a double it would lose digits`);
    t.notMatch(text, /12345678901234567000/, 'the rounded code is not shown');
  });

  t.test(`${how}: a key named twice in the error fails the turn naming it`, async (t) => {
    answerText = errorText('{"code":-32001,"message":"first","message":"second"}');
    t.equal(
      await failure(r.name),
      `the remote's answer to ${m} names the key at error.message twice in one object: JSON readers differ on which of them counts`,
    );
  });

  t.test(`${how}: an error's data is not read, so the remote's error stands whatever it holds`, async (t) => {
    for (const data of [`{"n":${BIG}}`, '{"k":1,"k":2}', `[${BIG}]`]) {
      answerText = errorText(`{"code":-32001,"data":${data},"message":"boom"}`);
      t.equal(await failure(r.name), `the remote answered ${m} with error -32001: boom`, data);
    }
  });

  t.test(`${how}: a key named twice in the result fails the turn naming it`, async (t) => {
    const at = r.dialect === '0.3' ? 'result.status.state' : 'result.task.status.state';
    const state = r.dialect === '0.3' ? '"state":"failed","state":"completed"' : '"state":"TASK_STATE_FAILED","state":"TASK_STATE_COMPLETED"';
    answerText = (d) => okText(d).replace(/"state":"[A-Z_a-z]+"/, state);
    t.equal(await failure(r.name), `the remote's answer to ${m} names the key at ${at} twice in one object: JSON readers differ on which of them counts`);
  });

  t.test(`${how}: keys named twice where the answer is not read are left alone`, async (t) => {
    answerText = (d) => okText(d).replace('"jsonrpc":"2.0"', `"jsonrpc":"2.0","extra":{"k":1,"k":${BIG}}`);
    const task = await sendGo({ ours, key }, r.name);
    t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
  });
}

t.test('an Agent Card holding an integer past 2^53 − 1 is refused naming its path; the call fails saying so', async (t) => {
  const text = await failure('cardint');
  t.match(text, `holds an integer past ±9007199254740991 (2^53 − 1) at build: read as a double it would lose digits`);
  t.match(text, /Agent Card at http:\/\/127\.0\.0\.1:\d+\/cardint\/\.well-known\/agent-card\.json/);
  t.equal(s.seen.filter((x) => x.path === '/cardint/rpc').length, 0, 'nothing was sent to the remote');
});

t.test('an Agent Card naming a key twice (its url) is refused naming it; nothing goes to either url', async (t) => {
  const text = await failure('carddup');
  t.match(text, 'names the key at url twice in one object: JSON readers differ on which of them counts');
  t.equal(s.seen.filter((x) => x.path === '/carddup/rpc').length, 0, 'nothing was sent to the remote');
});

t.test('a card with safe integers is read as before', async (t) => {
  const task = await sendGo({ ours, key }, 'cardok');
  t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
});
