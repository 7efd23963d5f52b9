// A remote agent's message and answers keep the fields beside the parts: a caller's extensions reach the official SDK
// servers (0.3 and 1.x, the latter with each part's mediaType and filename), the remote's artifact and message extensions come
// back to the caller, and task ids that mean something only on one side (referenceTaskIds) stay on it.
import type { Message, Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import t from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { startSdk1Remote, type Sdk1Remote } from '../support/sdk1-remote.js';

const WS = 'ws1';
const EXT = ['https://ext.example/a2a/trace/v1'];
const REMOTE_EXT = ['https://ext.example/a2a/remote/v1'];

/** A 0.3 agent whose artifact and closing message name an extension, and whose message refers to its own tasks. */
class ExtendedEcho implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    const now = () => new Date().toISOString();
    const task: Task = { kind: 'task', ...base, id: ctx.taskId, status: { state: 'submitted', timestamp: now() }, history: [ctx.userMessage] };
    bus.publish(task);
    bus.publish({ kind: 'artifact-update', ...base, artifact: { artifactId: 'out', parts: [{ kind: 'text', text: 'done' }], extensions: REMOTE_EXT } });
    const done: Message = {
      kind: 'message',
      role: 'agent',
      messageId: `${ctx.taskId}-done`,
      parts: [{ kind: 'text', text: 'ok' }],
      extensions: REMOTE_EXT,
      referenceTaskIds: ['remote-task-7'],
      ...base,
    };
    bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', message: done, timestamp: now() }, final: true });
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

let sdk: SdkRemote;
let sdk1: Sdk1Remote;
let ours: TestGateway;
let key: string;

t.before(async () => {
  sdk = await startSdkRemote({ executor: new ExtendedEcho() });
  sdk1 = await startSdk1Remote();
  ours = await startTestGateway({
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        { id: 'sdk-ext', name: 'sdk-ext', kind: 'remote', connection: 'sdk', workspace: WS },
        { id: 'sdk1-echo', name: 'sdk1-echo', kind: 'remote', connection: 'sdk1', workspace: WS },
      ],
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  for (const [name, url] of [
    ['sdk', sdk.url],
    ['sdk1', sdk1.url],
  ] as const) {
    await addConnection(
      { connections: ours.gw.store.connections, secret: ours.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) },
      { workspace: WS, name, url, credentials: { kind: 'none' }, trust: 'admin', dialect: 'auto', agents: [] },
    );
  }
});

t.teardown(async () => {
  await ours.close();
  await sdk.close();
  await sdk1.close();
});

t.test("0.3 remote: the caller's extensions reach it, its own come back; referenceTaskIds stay on their side", async (t) => {
  const earlier = await ours.rpc({
    method: 'message/send',
    key,
    params: { message: { kind: 'message', role: 'user', messageId: 'm-0', parts: [{ kind: 'text', text: 'a' }] }, metadata: { agentId: 'sdk-ext' } },
  });
  const message = {
    kind: 'message',
    role: 'user',
    messageId: 'm-1',
    parts: [{ kind: 'text', text: 'b' }],
    extensions: EXT,
    referenceTaskIds: [earlier.json.result.id],
  };
  const r = await ours.rpc({ method: 'message/send', key, params: { message, metadata: { agentId: 'sdk-ext' } } });
  const task = r.json.result;
  t.equal(task.status.state, 'completed', JSON.stringify(r.json));

  const got = sdk.calls().filter((c) => c.json.params?.message?.messageId === 'm-1');
  t.equal(got.length, 1, 'the remote got the message once');
  const sent = got[0]!.json.params.message;
  t.strictSame(sent.extensions, EXT, "the caller's extensions reached the remote");
  t.notOk('referenceTaskIds' in sent, 'our task ids do not leave (the remote does not know them)');
  t.strictSame(sent.parts, [{ kind: 'text', text: 'b' }]);

  t.strictSame(task.artifacts[0].extensions, REMOTE_EXT, "the remote's artifact extensions come back");
  t.strictSame(task.status.message.extensions, REMOTE_EXT, "the remote's message extensions come back");
  t.notOk('referenceTaskIds' in task.status.message, "the remote's task ids are not shown to our caller");
  const kept = await ours.rpc({ method: 'tasks/get', key, params: { id: task.id } });
  t.strictSame(kept.json.result.history[0].referenceTaskIds, [earlier.json.result.id], 'our history keeps what our caller referred to');
  t.strictSame(kept.json.result.history.at(-1).extensions, REMOTE_EXT, "and the remote's answer with its extensions");
});

t.test("1.0 remote (the SDK 1.x server): a caller's mediaType and filename on text and data parts and extensions reach it", async (t) => {
  const parts = [
    { text: '# hi', mediaType: 'text/markdown', filename: 'hi.md' },
    { data: { n: 1 }, mediaType: 'application/json', filename: 'n.json' },
  ];
  const r = await ours.rpc({
    method: 'SendMessage',
    key,
    headers: { 'A2A-Version': '1.0' },
    params: { message: { messageId: 'm-v1', role: 'ROLE_USER', parts, extensions: EXT, metadata: { agentId: 'sdk1-echo' } } },
  });
  t.equal(r.json.result?.task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(r.json));
  const got = sdk1.calls().filter((c) => c.params?.message?.messageId === 'm-v1');
  t.equal(got.length, 1, 'the remote got the message once');
  t.strictSame(got[0]!.params.message.parts, parts, 'each part with its media type and file name');
  t.strictSame(got[0]!.params.message.extensions, EXT, 'and the extensions');
});

t.test("0.3 remote: a 1.0 caller's mediaType and filename on a text part are not sent (0.3's TextPart has no such fields)", async (t) => {
  const r = await ours.rpc({
    method: 'SendMessage',
    key,
    headers: { 'A2A-Version': '1.0' },
    params: {
      message: {
        messageId: 'm-v1-to-03',
        role: 'ROLE_USER',
        parts: [{ text: '# hi', mediaType: 'text/markdown', filename: 'hi.md' }],
        metadata: { agentId: 'sdk-ext' },
      },
    },
  });
  t.equal(r.json.result?.task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(r.json));
  const got = sdk.calls().filter((c) => c.json.params?.message?.messageId === 'm-v1-to-03');
  t.equal(got.length, 1, 'the remote got the message once');
  t.strictSame(got[0]!.json.params.message.parts, [{ kind: 'text', text: '# hi' }], 'the part as 0.3 has it');
  const kept = await ours.rpc({ method: 'GetTask', key, headers: { 'A2A-Version': '1.0' }, params: { id: r.json.result.task.id } });
  t.strictSame(kept.json.result.history[0].parts, [{ text: '# hi', mediaType: 'text/markdown', filename: 'hi.md' }], 'our history keeps them');
});
