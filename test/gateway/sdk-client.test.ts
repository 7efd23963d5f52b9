// The official A2A JS SDK (@a2a-js/sdk 0.3.x) as a client of the gateway: card discovery, send, follow-up, get, cancel.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import type { Message, MessageSendParams, Task } from '@a2a-js/sdk';
import {
  A2AClient,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-js/sdk/client';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitForState } from '../support/tasks.js';

/** fetch that adds the gateway's Bearer key, as a user of the SDK would write it. */
const bearerFetch =
  (key: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };

const userMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  role: 'user',
  messageId: randomUUID(),
  parts: [{ kind: 'text', text }],
  ...extra,
});

async function setup(t: Test): Promise<{ gw: TestGateway; key: string; client: A2AClient }> {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'autonomous' });
  const client = await A2AClient.fromCardUrl(`${gw.url}/.well-known/agent-card.json`, { fetchImpl: bearerFetch(key) });
  return { gw, key, client };
}

/** The Task of a successful JSON-RPC response, failing the test on an error or a Message. */
function taskOf(t: Test, res: { result?: unknown; error?: unknown }, what: string): Task {
  if ('error' in res && res.error) {
    t.fail(`${what}: ${JSON.stringify(res.error)}`);
    throw new Error(what);
  }
  const result = res.result as Task | Message;
  t.equal(result.kind, 'task', `${what}: the result is a Task`);
  return result as Task;
}

t.test('A2AClient: card, send to echo, get', async (t) => {
  const { gw, client } = await setup(t);
  const card = await client.getAgentCard();
  t.equal(card.url, `${gw.url}/api/a2a`, 'the SDK read the endpoint from the card');

  const sent = await client.sendMessage({ message: userMessage('hello sdk') });
  const task = taskOf(t, sent, 'message/send');
  t.equal(task.status.state, 'completed');
  t.type(task.id, 'string');
  t.type(task.contextId, 'string');
  t.equal(task.artifacts?.length, 1);
  t.type(task.artifacts?.[0]?.artifactId, 'string');
  t.same(task.artifacts?.[0]?.parts, [{ kind: 'text', text: 'hello sdk' }]);
  t.equal(task.history?.[0]?.kind, 'message');
  t.equal(task.history?.[0]?.role, 'user');

  const got = taskOf(t, await client.getTask({ id: task.id }), 'tasks/get');
  t.equal(got.id, task.id);
  t.equal(got.status.state, 'completed');
  t.same(got.artifacts, task.artifacts);
  const noHistory = taskOf(t, await client.getTask({ id: task.id, historyLength: 0 }), 'tasks/get historyLength 0');
  t.same(noHistory.history ?? [], []);

  const missing = await client.getTask({ id: 'no-such-task' });
  t.ok('error' in missing, 'an unknown task is an error');
  if ('error' in missing) t.equal(missing.error.code, -32001);
});

t.test('A2AClient: a multi-turn task (converse) continued with taskId until done', async (t) => {
  const { client } = await setup(t);
  const first = taskOf(t, await client.sendMessage({ message: userMessage('first point', { metadata: { agentId: 'converse' } }) }), 'first turn');
  t.equal(first.status.state, 'input-required');
  t.equal(first.status.message?.role, 'agent');
  t.match(first.status.message?.parts[0], { kind: 'text', text: /Turn 1/ });

  const second = taskOf(t, await client.sendMessage({ message: userMessage('second point', { taskId: first.id, contextId: first.contextId }) }), 'second turn');
  t.equal(second.id, first.id, 'the same task');
  t.equal(second.contextId, first.contextId);
  t.equal(second.status.state, 'input-required');

  const done = taskOf(t, await client.sendMessage({ message: userMessage('done', { taskId: first.id }) }), 'last turn');
  t.equal(done.status.state, 'completed');
  const summary = done.artifacts?.[0];
  t.equal(summary?.name, 'summary');
  t.same(
    summary?.parts.find((p) => p.kind === 'data'),
    { kind: 'data', data: { turns: 3, texts: ['first point', 'second point', 'done'] } },
  );

  const after = await client.sendMessage({ message: userMessage('more?', { taskId: first.id }) });
  t.ok('error' in after, 'a completed task takes no more messages');
  if ('error' in after) t.equal(after.error.code, -32602);
});

t.test('A2AClient: a non-blocking slow task, then cancel', async (t) => {
  const { gw, key, client } = await setup(t);
  const params: MessageSendParams = {
    message: { ...userMessage('slowly'), parts: [{ kind: 'data', data: { ms: 30_000, steps: 30 } }], metadata: { agentId: 'slow' } },
    configuration: { blocking: false },
  };
  const started = taskOf(t, await client.sendMessage(params), 'non-blocking send');
  t.ok(['submitted', 'working'].includes(started.status.state), `returns at once (${started.status.state})`);
  await waitForState(gw, { key, id: started.id, states: ['working'] });

  const canceled = taskOf(t, await client.cancelTask({ id: started.id }), 'tasks/cancel');
  t.equal(canceled.id, started.id);
  t.equal(canceled.status.state, 'canceled');
  t.equal(taskOf(t, await client.getTask({ id: started.id }), 'tasks/get after cancel').status.state, 'canceled');

  const again = await client.cancelTask({ id: started.id });
  t.ok('error' in again, 'a second cancel is refused');
  if ('error' in again) t.equal(again.error.code, -32002);
});

t.test('A2AClient: a wrong key is an error the SDK reports, not a crash', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const client = await A2AClient.fromCardUrl(`${gw.url}/.well-known/agent-card.json`, { fetchImpl: bearerFetch(`svc_a2a_${'x'.repeat(43)}`) });
  const r = await client.sendMessage({ message: userMessage('hi') });
  t.ok('error' in r);
  if ('error' in r) {
    t.equal(r.error.code, -32003);
    t.match(r.error.message, /Unauthorized/);
  }
});

t.test('ClientFactory (the SDK’s current client): card resolution, send, follow-up, get, cancel', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'autonomous' });
  const fetchImpl = bearerFetch(key);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  const client = await factory.createFromUrl(gw.url);

  const card = await client.getAgentCard();
  t.type(card.name, 'string', 'the card (extended when the card says so) resolves');
  t.ok(card.skills.length > 0);

  const echo = await client.sendMessage({ message: userMessage('via factory') });
  t.equal(echo.kind, 'task');
  if (echo.kind !== 'task') return;
  t.equal(echo.status.state, 'completed');
  t.same(echo.artifacts?.[0]?.parts, [{ kind: 'text', text: 'via factory' }]);

  const conv = await client.sendMessage({ message: userMessage('a', { metadata: { agentId: 'converse' } }) });
  if (conv.kind !== 'task') return t.fail('converse answered with a Message');
  t.equal(conv.status.state, 'input-required');
  const done = await client.sendMessage({ message: userMessage('done', { taskId: conv.id }) });
  if (done.kind !== 'task') return t.fail('the follow-up answered with a Message');
  t.equal(done.status.state, 'completed');

  const got = await client.getTask({ id: done.id });
  t.equal(got.status.state, 'completed');
  t.same(got.artifacts, done.artifacts);

  const slow = await client.sendMessage({
    message: { ...userMessage('slow'), parts: [{ kind: 'data', data: { ms: 30_000, steps: 30 } }], metadata: { agentId: 'slow' } },
    configuration: { blocking: false },
  });
  if (slow.kind !== 'task') return t.fail('slow answered with a Message');
  t.ok(['submitted', 'working'].includes(slow.status.state));
  await waitForState(gw, { key, id: slow.id, states: ['working'] });
  const canceled = await client.cancelTask({ id: slow.id });
  t.equal(canceled.status.state, 'canceled');

  await t.rejects(client.cancelTask({ id: slow.id }), TaskNotCancelableError, 'the SDK maps -32002 to TaskNotCancelableError');
  await t.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError, 'the SDK maps -32001 to TaskNotFoundError');
});
