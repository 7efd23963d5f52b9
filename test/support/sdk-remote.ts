// Test support: the official @a2a-js/sdk 0.3 server (DefaultRequestHandler + InMemoryTaskStore + A2AExpressApp) as a
// remote agent on loopback, with an echo executor that streams its work, optional checks in front (an API key, a bearer
// token) and over TLS (mTLS); it records every request so a test can count card fetches and read what was sent.
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';
import express, { type RequestHandler } from 'express';

/** Echoes the text parts it is sent, the 0.3 way: the task, working, the artifact, then completed (final). */
export class StreamingEcho implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = ctx.userMessage.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join(' ');
    const base = { taskId: ctx.taskId, contextId: ctx.contextId };
    const now = () => new Date().toISOString();
    if (!ctx.task) {
      const task: Task = {
        kind: 'task',
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 'submitted', timestamp: now() },
        history: [ctx.userMessage],
      };
      bus.publish(task);
    }
    bus.publish({ kind: 'status-update', ...base, status: { state: 'working', timestamp: now() }, final: false });
    bus.publish({ kind: 'artifact-update', ...base, artifact: { artifactId: 'echo', parts: [{ kind: 'text', text }] } });
    const done: Message = { kind: 'message', role: 'agent', messageId: `${ctx.taskId}-done`, parts: [{ kind: 'text', text: `echoed: ${text}` }], ...base };
    bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', message: done, timestamp: now() }, final: true });
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** the raw request body */
  body: string;
  /** what was answered */
  status?: number;
  /** the client's port: requests on one kept-alive socket share it */
  port: number | undefined;
}

export interface SdkRemote {
  /** the base URL a connection names: the card is under it, at .well-known/agent-card.json */
  url: string;
  requests: Recorded[];
  /** card fetches (GET of a .well-known path) and their statuses */
  cardFetches(): Recorded[];
  /** JSON-RPC calls by method name */
  calls(method?: string): Array<Recorded & { json: any }>;
  card: AgentCard;
  /** resolves once every request seen so far has been answered (its status recorded) */
  answered(): Promise<void>;
  close(): Promise<void>;
}

export interface SdkRemoteOptions {
  streaming?: boolean;
  /** checks run before the A2A routes (the card included) */
  before?: RequestHandler[];
  /** serve over TLS with these (requestCert: the client must show a certificate signed by ca) */
  tls?: { key: string; cert: string; ca: string; requestCert: boolean };
  executor?: AgentExecutor;
  /** the card's fields to change (protocolVersion, say) */
  cardExtra?: Partial<AgentCard>;
}

export async function startSdkRemote(o: SdkRemoteOptions = {}): Promise<SdkRemote> {
  const card: AgentCard = {
    name: 'sdk-echo',
    description: 'Echoes the text it receives (the official SDK server).',
    url: 'http://127.0.0.1/api/a2a',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: o.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
    ...o.cardExtra,
  };
  const requests: Recorded[] = [];
  const app = express();
  app.use((req, res, next) => {
    const rec: Recorded = { method: req.method, path: req.originalUrl, headers: req.headers, body: '', port: req.socket.remotePort };
    requests.push(rec);
    res.on('finish', () => {
      rec.status = res.statusCode;
    });
    next();
  });
  // keeps the raw body (the router's own json parser then finds it parsed and leaves it)
  app.use(
    express.json({
      verify: (req, _res, buf) => {
        const rec = [...requests].reverse().find((r) => r.headers === req.headers);
        if (rec) rec.body = buf.toString('utf8');
      },
    }),
  );
  for (const check of o.before ?? []) app.use(check);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), o.executor ?? new StreamingEcho());
  new A2AExpressApp(handler).setupRoutes(app, '/api/a2a');

  const server: Server = o.tls
    ? createHttpsServer({ key: o.tls.key, cert: o.tls.cert, ca: o.tls.ca, requestCert: o.tls.requestCert, rejectUnauthorized: o.tls.requestCert }, app)
    : app.listen(0, '127.0.0.1');
  if (o.tls) server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  const { port } = server.address() as AddressInfo;
  const url = `${o.tls ? 'https' : 'http'}://127.0.0.1:${port}/api/a2a`;
  card.url = url;
  return {
    url,
    requests,
    card,
    cardFetches: () => requests.filter((r) => r.method === 'GET' && r.path.includes('/.well-known/')),
    calls: (method) =>
      requests
        .filter((r) => r.method === 'POST' && r.body !== '')
        .map((r) => ({ ...r, json: JSON.parse(r.body) }))
        .filter((r) => method === undefined || r.json.method === method),
    async answered() {
      while (requests.some((q) => q.status === undefined)) await new Promise((r) => setTimeout(r, 2));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A check in front of the remote: the request must carry `header: value`, else 401 (as a JSON-RPC error body). */
export const requireHeader =
  (header: string, value: string): RequestHandler =>
  (req, res, next) => {
    if (req.header(header) === value) return next();
    res.status(401).json({ jsonrpc: '2.0', id: null, error: { code: -32003, message: `missing or wrong ${header}` } });
  };
