// The official A2A JS SDK 1.x (@a2a-js/sdk 1.3, installed as `a2a-sdk-v1`) as a client of the gateway in its native
// 1.0 mode, no compatibility layer: card resolution picks 1.0, then send, multi-turn, get, list, cancel, stream,
// resubscribe and push config create/get/list/delete. Its 0.3 compatibility transport still works too.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from 'a2a-sdk-v1';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from 'a2a-sdk-v1/client';
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

interface Seen {
  method: string | undefined;
  version: string | null;
}

/** fetch that adds the gateway's Bearer key (as a user of the SDK would) and records each call's method and version. */
const recordingFetch =
  (key: string, seen: Seen[]): typeof fetch =>
  async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    seen.push({ method: body?.method ?? 'GET card', version: headers.get('A2A-Version') });
    return fetch(input, { ...init, headers });
  };

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' });

const message = (parts: Part[], o: { agentId?: string; taskId?: string; contextId?: string } = {}): Message => ({
  messageId: randomUUID(),
  contextId: o.contextId ?? '',
  taskId: o.taskId ?? '',
  role: Role.ROLE_USER,
  parts,
  metadata: o.agentId ? { agentId: o.agentId } : undefined,
  extensions: [],
  referenceTaskIds: [],
});
const sendParams = (m: Message) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined });

function asTask(t: Test, r: Task | Message, what: string): Task {
  t.ok('status' in r, `${what}: the result is a Task`);
  return r as Task;
}

const texts = (parts: Part[]) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : undefined));

async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

async function setup(t: Test, o: { polling?: boolean } = {}): Promise<{ gw: TestGateway; client: Client; seen: Seen[]; key: string }> {
  const gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'admin' });
  const seen: Seen[] = [];
  const fetchImpl = recordingFetch(key, seen);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    ...(o.polling && { clientConfig: { polling: true } }),
  });
  const client = await factory.createFromUrl(gw.url);
  return { gw, client, seen, key };
}

t.test('native 1.0: the card resolves to 1.0; send, multi-turn, get, list, cancel', async (t) => {
  const { gw, client, seen } = await setup(t);
  t.equal(client.protocolVersion, '1.0', 'the client chose the 1.0 interface');
  t.equal(client.transport.protocolVersion, '1.0', 'its native 1.0 transport, not the 0.3 compatibility one');

  const sent = asTask(t, await client.sendMessage(sendParams(message([textPart('hello 1.0')], { agentId: 'echo' }))), 'SendMessage');
  t.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
  t.same(texts(sent.artifacts[0]!.parts), ['hello 1.0'], 'the echo, read by the SDK');
  t.equal(sent.history[0]?.role, Role.ROLE_USER);

  const first = asTask(t, await client.sendMessage(sendParams(message([textPart('first point')], { agentId: 'converse' }))), 'converse');
  t.equal(first.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  t.equal(first.status?.message?.role, Role.ROLE_AGENT);
  const done = asTask(t, await client.sendMessage(sendParams(message([textPart('done')], { taskId: first.id, contextId: first.contextId }))), 'follow-up');
  t.equal(done.id, first.id, 'the follow-up continued the task');
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);

  const got = await client.getTask({ tenant: '', id: done.id, historyLength: 1 });
  t.equal(got.id, done.id);
  t.equal(got.history.length, 1, 'historyLength applies');

  const listed = await client.listTasks({
    tenant: '',
    contextId: first.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 10,
    pageToken: '',
    statusTimestampAfter: undefined,
  });
  t.same(
    listed.tasks.map((x) => x.id),
    [first.id],
    'ListTasks filtered by context',
  );
  t.equal(listed.totalSize, 1);
  const completed = await client.listTasks({
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_COMPLETED,
    pageToken: '',
    statusTimestampAfter: undefined,
  });
  t.equal(completed.totalSize, 2, 'ListTasks filtered by state');

  await t.rejects(client.getTask({ tenant: '', id: 'no-such-task' }), { name: 'TaskNotFoundError' }, 'an unknown task is the SDK TaskNotFoundError');

  const methods = new Set(seen.map((s) => s.method));
  for (const m of ['GET card', 'SendMessage', 'GetTask', 'ListTasks']) t.ok(methods.has(m), `the SDK called ${m}`);
  t.ok(
    seen.every((s) => s.version === '1.0'),
    'every call, the card fetch included, said A2A-Version: 1.0',
  );
  t.notOk(
    [...methods].some((m) => m?.includes('/')),
    'no 0.3 method name was used',
  );
  t.ok(gw, 'gateway up');
});

t.test('native 1.0: cancel a task sent with returnImmediately (polling client)', async (t) => {
  const { client } = await setup(t, { polling: true });
  const started = asTask(t, await client.sendMessage(sendParams(message([dataPart({ ms: 30_000, steps: 1 })], { agentId: 'slow' }))), 'slow');
  t.ok([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(started.status!.state), 'answered at once');
  const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
  t.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
  await t.rejects(client.cancelTask({ tenant: '', id: started.id, metadata: undefined }), { name: 'TaskNotCancelableError' });
});

t.test('native 1.0: stream and resubscribe', async (t) => {
  const { client, seen } = await setup(t);
  const events = await collect(client.sendMessageStream(sendParams(message([dataPart({ ms: 150, steps: 3 })], { agentId: 'slow' }))));
  t.equal(events[0]?.payload?.$case, 'task', 'the stream opens with the task');
  const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
  const last = events[events.length - 1]?.payload;
  t.equal(last?.$case, 'statusUpdate');
  if (last?.$case === 'statusUpdate') {
    t.equal(last.value.status?.state, TaskState.TASK_STATE_COMPLETED, 'it ends with the terminal status');
    t.equal(last.value.taskId, taskId, 'naming our task id');
  }
  t.ok(
    events.some((e) => e.payload?.$case === 'artifactUpdate'),
    'artifact updates arrive as artifactUpdate',
  );

  // a task still running: resubscribing follows it to its end
  const polling = await setup(t, { polling: true });
  const running = asTask(
    t,
    await polling.client.sendMessage(sendParams(message([dataPart({ ms: 400, steps: 4 })], { agentId: 'slow' }))),
    'slow, returnImmediately',
  );
  const resub = await collect(polling.client.resubscribeTask({ tenant: '', id: running.id }));
  t.equal(resub[0]?.payload?.$case, 'task', 'SubscribeToTask opens with the task as it stands');
  const end = resub[resub.length - 1]?.payload;
  const endState = end?.$case === 'statusUpdate' ? end.value.status?.state : end?.$case === 'task' ? end.value.status?.state : undefined;
  t.equal(endState, TaskState.TASK_STATE_COMPLETED, 'and ends with the task completed');
  t.ok(
    seen.some((s) => s.method === 'SendStreamingMessage'),
    'the SDK used SendStreamingMessage',
  );
  t.ok(
    polling.seen.some((s) => s.method === 'SubscribeToTask'),
    'and SubscribeToTask',
  );
});

t.test('native 1.0: push config create, get, list, delete', async (t) => {
  const { client } = await setup(t);
  const task = asTask(t, await client.sendMessage(sendParams(message([textPart('x')], { agentId: 'echo' }))), 'echo');
  const url = 'http://127.0.0.1:9/hook';
  const made = await client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url, token: 'secret-token', authentication: undefined });
  t.equal(made.taskId, task.id);
  t.equal(made.url, url);
  t.type(made.id, 'string');
  t.not(made.id, '', 'the gateway names the config');
  t.equal(made.token, '********', 'the token is write-only');
  const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: made.id });
  t.same(got, made);
  await client.createTaskPushNotificationConfig({
    tenant: '',
    id: 'second',
    taskId: task.id,
    url,
    token: '',
    authentication: { scheme: 'Bearer', credentials: 'c' },
  });
  const list = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
  t.same(
    list.configs.map((c) => c.id),
    [made.id, 'second'],
  );
  t.same(list.configs[1]?.authentication, { scheme: 'Bearer', credentials: '********' });
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: made.id });
  const after = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
  t.same(
    after.configs.map((c) => c.id),
    ['second'],
    'deleted',
  );
});

t.test("the 1.x client's 0.3 compatibility transport still works (a card offering 0.3 only)", async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'autonomous' });
  const seen: Seen[] = [];
  const fetchImpl = recordingFetch(key, seen);
  const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
  const card = await resolver.resolve(gw.url);
  t.equal(card.supportedInterfaces[0]?.protocolVersion, '1.0', 'the card offers 1.0 first');
  const only03 = { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })] });
  const client = await factory.createFromAgentCard(only03);
  t.equal(client.transport.protocolVersion, '0.3', 'the compatibility transport');
  const sent = asTask(t, await client.sendMessage(sendParams(message([textPart('via 0.3')], { agentId: 'echo' }))), 'message/send');
  t.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
  t.same(texts(sent.artifacts[0]!.parts), ['via 0.3']);
  const got = await client.getTask({ tenant: '', id: sent.id });
  t.equal(got.id, sent.id);
  t.ok(
    seen.some((s) => s.method === 'message/send' && s.version === '0.3'),
    'it spoke 0.3 method names with A2A-Version 0.3',
  );
});
