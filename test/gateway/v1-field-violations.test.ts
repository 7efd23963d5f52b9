// A2A 1.0 (section 9.5): InvalidParams SHOULD carry a google.rpc.BadRequest naming each field in `fieldViolations`
// (`field` the path in the request's params, as the spec's example `message.parts`; a list index as `[n]`). The
// ErrorInfo stays first; a refusal of something that is no params field (a header) carries no BadRequest.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const V1 = { 'A2A-Version': '1.0' };
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const badRequestOf = (error: any) => (error?.data ?? []).find((d: { '@type': string }) => d['@type'] === BAD_REQUEST);

t.test('1.0 InvalidParams: a BadRequest names every failing field', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const send = (message: unknown) => gw.rpc({ method: 'SendMessage', params: { message }, key, headers: V1 });

  const empty = await send({ messageId: 'm1', role: 'ROLE_USER', parts: [] });
  t.equal(empty.json.error?.code, -32602);
  t.equal(empty.json.error.data[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo', 'the ErrorInfo first, as before');
  t.match(badRequestOf(empty.json.error), { fieldViolations: [{ field: 'message.parts', description: /non-empty/ }] }, "the spec's own example");

  const two = await send({ messageId: 'm2', role: 'ROLE_NOBODY', parts: [{ text: 'x' }, {}] });
  const fields = (badRequestOf(two.json.error)?.fieldViolations ?? []).map((v: { field: string }) => v.field).sort();
  t.same(fields, ['message.parts[1]', 'message.role'], 'each failing field, a list index as [n]');
  for (const v of badRequestOf(two.json.error)?.fieldViolations ?? []) t.type(v.description, 'string');

  // a check past the schema (a role the send refuses) names its field too
  const agentRole = await send({ messageId: 'm3', role: 'ROLE_AGENT', parts: [{ text: 'x' }] });
  t.match(badRequestOf(agentRole.json.error), { fieldViolations: [{ field: 'message.role' }] });

  // a header is no params field: no BadRequest, the ErrorInfo names it as before
  const made = await send({ messageId: 'm4', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { agentId: 'converse' } });
  const s = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: made.json.result.task.id }, headers: { ...V1, 'Last-Event-ID': 'x' } });
  const error = s.json?.error ?? (await s.all()).find((f) => f.data)?.data.error;
  t.equal(error?.code, -32602);
  t.equal(error?.data[0].metadata.path, 'Last-Event-ID');
  t.notOk(badRequestOf(error), 'no BadRequest for a header');

  // 0.3 callers read their own shape, unchanged
  const old = await gw.rpc({ method: 'message/send', params: { message: { kind: 'message', messageId: 'm5', role: 'user', parts: [] } }, key });
  t.equal(old.json.error?.data.path, 'params.message.parts');
  t.notOk(Array.isArray(old.json.error?.data));
});
