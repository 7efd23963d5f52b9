// An agent the caller names that does not exist (or that its key cannot reach) is AGENT_NOT_FOUND naming the field it
// was named in, in 0.3 and in 1.0's ErrorInfo metadata; the per-agent URL's agent names none (it is the URL).
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

t.test('AGENT_NOT_FOUND names the field that named the agent or skill', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const v1 = (params: unknown) => gw.rpc({ method: 'SendMessage', params, key, headers: { 'A2A-Version': '1.0' } });
  const message = (extra: Record<string, unknown> = {}) => ({ messageId: `anf-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'x' }], ...extra });

  const inMessage = await v1({ message: message({ metadata: { agentId: 'nope' } }) });
  t.equal(inMessage.json.error.code, -32053);
  t.same(inMessage.json.error.data[0].metadata, { path: 'params.message.metadata.agentId', agentId: 'nope' });

  const inParams = await v1({ message: message(), metadata: { agentId: 'nope' } });
  t.equal(inParams.json.error.data[0].metadata.path, 'params.metadata.agentId');

  const skill = await v1({ message: message({ metadata: { skillId: 'no-skill' } }) });
  t.same(skill.json.error.data[0].metadata, { path: 'params.message.metadata.skillId', skillId: 'no-skill' });

  const b = await gw.rpc({ method: 'message/send', key, params: msgB('x', { metadata: { agentId: 'nope' } }) });
  t.equal(b.json.error.code, -32005);
  t.equal(b.json.error.data.path, 'params.message.metadata.agentId', 'the same in 0.3');

  const url = await gw.rpc({ method: 'message/send', key, params: msgB('x'), path: '/api/a2a/agents/nope' });
  t.equal(url.json.error.code, -32005);
  t.equal(url.json.error.data.agentId, 'nope', "the URL's agent: its id, no params path");
  t.notOk('path' in url.json.error.data);
});
