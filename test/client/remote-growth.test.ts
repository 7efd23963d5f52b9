// A remote agent that streams artifact chunks without end meets the same bound as a module agent: every runner's
// events pass the run driver. Past `tasks.maxTaskBytes` our task fails (`output_too_large`) and the remote task is
// canceled, as a cancel of ours would cancel it.
import type { Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import t from 'tap';
import { until } from '../support/a2a-client.js';
import { msgB } from '../support/gateway.js';
import { startSdkRemoteGateway } from '../support/sdk-remote-gateway.js';

const LIMIT = 64 * 1024;

/** Appends 1 KiB chunks until its task is canceled (or 4096 of them, so a gateway without the bound still ends). */
class Endless implements AgentExecutor {
  private readonly canceled = new Set<string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    const now = () => new Date().toISOString();
    const task: Task = { kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'working', timestamp: now() }, history: [ctx.userMessage] };
    bus.publish(task);
    const text = 'r'.repeat(1024);
    for (let i = 0; i < 4096 && !this.canceled.has(ctx.taskId); i++) {
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
      bus.publish({ kind: 'artifact-update', ...base, append: i > 0, artifact: { artifactId: 'endless', parts: [{ kind: 'text', text }] } });
    }
    if (this.canceled.has(ctx.taskId)) return;
    bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', timestamp: now() }, final: true });
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.canceled.add(taskId);
    bus.publish({ kind: 'status-update', taskId, contextId: '', status: { state: 'canceled', timestamp: new Date().toISOString() }, final: true });
    bus.finished();
  }
}

t.test('a remote streaming chunks without end: our task fails at the limit and the remote task is canceled', async (t) => {
  const { sdk, ours, key } = await startSdkRemoteGateway(t, {
    executor: new Endless(),
    streaming: true,
    agentId: 'endless',
    config: { tasks: { maxTaskBytes: LIMIT } },
  });
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('go on', { metadata: { agentId: 'endless' } }) });
  const task = r.json.result;
  t.equal(task?.status?.state, 'failed', JSON.stringify(r.json).slice(0, 300));
  t.equal(task?.status?.message?.metadata?.reason, 'output_too_large', 'the same reason as for a module agent');
  const got = await ours.rpc({ method: 'tasks/get', key, params: { id: task.id } });
  const kept = (got.json.result?.artifacts?.[0]?.parts ?? []).reduce((n: number, p: { text: string }) => n + p.text.length, 0);
  t.ok(kept > 0 && kept <= LIMIT, `the task reads, its output within the limit: ${kept} bytes`);
  await until(() => sdk.calls('tasks/cancel').length > 0, 'the remote task is canceled');
  t.pass('the remote was asked to cancel its task');
});
