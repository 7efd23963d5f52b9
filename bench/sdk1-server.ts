// Bench reference: the official @a2a-js/sdk 1.x server (installed as the alias `a2a-sdk-v1`):
// DefaultRequestHandler + InMemoryTaskStore, its express JSON-RPC handler mounted at /api/a2a (and the
// agent card at /.well-known/agent-card.json), with a trivial echo AgentExecutor that publishes one
// completed Task carrying an artifact that echoes the user's text. Speaks A2A 1.0 only: requests
// must carry `A2A-Version: 1.0` (no v0.3 compat layer).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard, TaskState, type Task } from 'a2a-sdk-v1';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-v1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from 'a2a-sdk-v1/server/express';

const card = AgentCard.fromJSON({
  name: 'echo',
  description: 'Echoes the text it receives (benchmark reference).',
  supportedInterfaces: [{ url: 'http://127.0.0.1/api/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  version: '0.0.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
});

class EchoExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const first = ctx.userMessage.parts[0];
    const text = first?.content?.$case === 'text' ? first.content.value : '';
    const task: Task = {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
      artifacts: [
        {
          artifactId: 'echo',
          name: '',
          description: '',
          parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
          metadata: undefined,
          extensions: [],
        },
      ],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/api/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`sdk1-server listening on http://127.0.0.1:${port}`);
});
