// Test support: the official @a2a-js/sdk 1.x server (DefaultRequestHandler + InMemoryTaskStore, its express JSON-RPC
// handler, no 0.3 compatibility layer) as a remote agent on loopback, speaking A2A 1.0 only. Its echo executor streams
// its work (the task, working, the artifact, completed); every request is recorded so a test can read what was sent.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, TaskState, type Message, type Task } from 'a2a-sdk-v1';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-v1/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from 'a2a-sdk-v1/server/express';
import express from 'express';

const now = () => new Date().toISOString();
const text = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: '' });

/** Echoes the text parts it is sent, the 1.0 way. */
class StreamingEcho1 implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const said = ctx.userMessage.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
    const base = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
    if (!ctx.task) {
      const task: Task = {
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
    }
    bus.publish(AgentEvent.statusUpdate({ ...base, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() } }));
    bus.publish(
      AgentEvent.artifactUpdate({
        ...base,
        artifact: { artifactId: 'echo', name: '', description: '', parts: [text(said)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
      }),
    );
    const done: Message = {
      messageId: `${ctx.taskId}-done`,
      contextId: ctx.contextId,
      taskId: ctx.taskId,
      role: 2,
      parts: [text(`echoed: ${said}`)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.statusUpdate({ ...base, status: { state: TaskState.TASK_STATE_COMPLETED, message: done, timestamp: now() } }));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

export interface Sdk1Remote {
  /** the base URL a connection names (its card is at .well-known/agent-card.json under the server root) */
  url: string;
  /** JSON-RPC calls, with the A2A-Version header each carried */
  calls(method?: string): Array<{ method: string; version: string | undefined; params: any }>;
  close(): Promise<void>;
}

export async function startSdk1Remote(o: { streaming?: boolean } = {}): Promise<Sdk1Remote> {
  const calls: Array<{ method: string; version: string | undefined; params: any }> = [];
  const app = express();
  let base = '';
  const card = () =>
    AgentCard.fromJSON({
      name: 'sdk1-echo',
      description: 'Echoes the text it receives (the official SDK 1.x server, A2A 1.0 only).',
      supportedInterfaces: [{ url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1.0.0',
      capabilities: { streaming: o.streaming ?? true, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
    });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), new StreamingEcho1());
  app.use(express.json());
  app.use((req, _res, next) => {
    if (req.method === 'POST' && typeof req.body?.method === 'string') {
      calls.push({ method: req.body.method, version: req.header('a2a-version'), params: req.body.params });
    }
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/api/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url: base,
    calls: (method) => calls.filter((c) => method === undefined || c.method === method),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
