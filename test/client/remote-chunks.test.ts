// A remote whose answer opens with a task that already holds the first chunk of an artifact (a quick agent, or a loaded
// server that sends its first frame late), then appends the rest: our caller gets the whole artifact, in order, once,
// whether the remote is streamed or polled.
import type { Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import t from 'tap';
import { msgB } from '../support/gateway.js';
import { startSdkRemoteGateway } from '../support/sdk-remote-gateway.js';

/** The task it first publishes already holds the artifact's first chunk; two more are appended to it. */
class SnapshotFirst implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    const now = () => new Date().toISOString();
    const task: Task = {
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'working', timestamp: now() },
      history: [ctx.userMessage],
      artifacts: [{ artifactId: 'story', parts: [{ kind: 'text', text: 'one ' }] }],
    };
    bus.publish(task);
    bus.publish({ kind: 'artifact-update', ...base, append: true, artifact: { artifactId: 'story', parts: [{ kind: 'text', text: 'two ' }] } });
    bus.publish({
      kind: 'artifact-update',
      ...base,
      append: true,
      lastChunk: true,
      artifact: { artifactId: 'story', parts: [{ kind: 'text', text: 'three' }] },
    });
    bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', timestamp: now() }, final: true });
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

for (const streaming of [true, false]) {
  t.test(`the first chunk in the opening task is kept, the rest appended (${streaming ? 'streamed' : 'polled'})`, async (t) => {
    const { sdk, ours, key } = await startSdkRemoteGateway(t, { executor: new SnapshotFirst(), streaming, agentId: 'story' });
    const r = await ours.rpc({ method: 'message/send', key, params: msgB('tell me', { metadata: { agentId: 'story' } }) });
    t.equal(r.json.result?.status.state, 'completed', JSON.stringify(r.json));
    const artifacts = r.json.result.artifacts;
    t.equal(artifacts.length, 1, 'one artifact');
    t.same(
      artifacts[0].parts.map((p: any) => p.text),
      ['one ', 'two ', 'three'],
      'every chunk, in order, once',
    );
    t.ok(sdk.calls(streaming ? 'message/stream' : 'message/send').length >= 1, streaming ? 'the remote was streamed' : 'the remote was sent to');
  });
}
