// Bench reference: the official @a2a-js/sdk 0.3 server (DefaultRequestHandler + InMemoryTaskStore +
// A2AExpressApp on express) mounted at /api/a2a, with a trivial echo AgentExecutor that publishes
// one completed Task carrying an artifact that echoes the user's text.
import type { AgentCard, Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { serveSdk } from './sdk-serve.js';

const card: AgentCard = {
  name: 'echo',
  description: 'Echoes the text it receives (benchmark reference).',
  url: 'http://127.0.0.1/api/a2a',
  version: '0.0.0',
  protocolVersion: '0.3.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
};

class EchoExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const first = ctx.userMessage.parts[0];
    const text = first !== undefined && first.kind === 'text' ? first.text : '';
    const task: Task = {
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'completed', timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
      artifacts: [{ artifactId: 'echo', parts: [{ kind: 'text', text }] }],
    };
    bus.publish(task);
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

serveSdk({ name: 'sdk-server', card, executor: new EchoExecutor() });
