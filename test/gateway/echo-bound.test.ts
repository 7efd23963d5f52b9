// A refusal repeats the caller's own value (its A2A-Version header or ?A2A-Version=, its Last-Event-ID, its method
// name, the agent or skill it names, the path it asked for) cut to MAX_ECHOED code points with `…`, never at its full length: a long header cannot make the answer (and a
// log line quoting it) that long.
import t from 'tap';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const LONG = 'v'.repeat(5000);
const CUT = `${'v'.repeat(99)}…`;

t.test('echoed caller values are cut to 100 characters', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const get = (o: { path?: string; headers?: Record<string, string> }) => gw.rpc({ method: 'tasks/get', params: { id: 'nope' }, key, ...o });

  const header = await get({ headers: { 'A2A-Version': `9.${LONG}` } });
  t.equal(header.json.error?.code, -32009, 'an unknown version is refused');
  t.equal(header.json.error?.message, `Version not supported: A2A-Version '9.${'v'.repeat(97)}…'; this gateway speaks 0.1, 0.2, 0.3, 1.0`);
  t.ok(JSON.stringify(header.json).length < 1000, 'the answer is short');
  const info = header.json.error?.data?.[0];
  t.equal(info?.metadata?.requested, `9.${'v'.repeat(97)}…`, "1.0's ErrorInfo repeats the cut value");

  const query = await get({ path: `/api/a2a?A2A-Version=${LONG}` });
  t.equal(query.json.error?.code, -32009);
  t.match(query.json.error?.message, `'${CUT}'`, 'the query parameter too');
  t.ok(JSON.stringify(query.json).length < 1000, 'the answer is short');

  const short = await get({ headers: { 'A2A-Version': '7.0' } });
  t.equal(short.json.error?.message, "Version not supported: A2A-Version '7.0'; this gateway speaks 0.1, 0.2, 0.3, 1.0", 'a short value is whole');

  const method = await gw.rpc({ method: `x/${LONG}`, params: {}, key });
  t.equal(method.json.error?.code, -32601);
  t.equal(method.json.error?.message, `Method not found: x/${'v'.repeat(97)}…`);
  t.equal(method.json.error?.data?.method, `x/${'v'.repeat(97)}…`);

  const sent = await gw.rpc({ method: 'message/send', params: msgB('hi'), key });
  const s = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: sent.json.result.id }, headers: { 'Last-Event-ID': LONG } });
  const frames = await s.all();
  const err = frames[0]?.data?.error;
  t.equal(err?.code, -32602);
  t.equal(err?.message, `Invalid Last-Event-ID header: '${CUT}' is not an event id of this stream`);
  t.equal(err?.data?.path, 'Last-Event-ID');

  const byAgent = await gw.rpc({ method: 'message/send', params: msgB('x', { metadata: { agentId: LONG } }), key });
  t.equal(byAgent.json.error?.code, -32005);
  t.match(byAgent.json.error?.message, `agent '${CUT}'`, 'metadata.agentId');
  t.equal(byAgent.json.error?.data?.agentId, CUT);
  const bySkill = await gw.rpc({ method: 'message/send', params: msgB('x', { metadata: { skillId: LONG } }), key });
  t.match(bySkill.json.error?.message, `skill '${CUT}'`, 'metadata.skillId');
  t.equal(bySkill.json.error?.data?.skillId, CUT);
  const byUrl = await gw.rpc({ method: 'message/send', params: msgB('x'), key, path: `/api/a2a/agents/${LONG}` });
  t.match(byUrl.json.error?.message, `agent '${CUT}'`, "the URL's agent");
  t.ok(JSON.stringify(byUrl.json).length < 1000, 'the answer is short');

  const card = await fetch(`${gw.url}/api/a2a/agents/${LONG}/.well-known/agent-card.json`);
  t.equal(card.status, 404);
  t.equal((await card.json()).message, `No listed agent '${CUT}'`, 'a card of no listed agent');
  const route = await fetch(`${gw.url}/${LONG}`);
  t.equal(route.status, 404);
  t.equal((await route.json()).message, `No route for GET /${'v'.repeat(98)}…`, 'no route');
});
