// Test support: a plain node:http server on loopback answering from a table of routes (path -> answer), recording
// every request: a remote with exactly the headers, statuses and bodies a test needs (cards, JSON-RPC answers).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string */
  body?: unknown;
  /** send the body in two writes, without Content-Length */
  chunked?: boolean;
}

export interface CardServer {
  url: string;
  seen: Array<{ method: string; path: string; headers: IncomingHttpHeaders; status: number; body: string }>;
  /** answers by path, whatever the method; an unknown path is 404 */
  route: Map<string, (h: IncomingHttpHeaders, body: string) => Answer>;
  close(): Promise<void>;
}

export async function cardServer(t: { teardown(fn: () => unknown): void }): Promise<CardServer> {
  const seen: CardServer['seen'] = [];
  const route: CardServer['route'] = new Map();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reqBody = Buffer.concat(chunks).toString('utf8');
      const a = route.get(req.url ?? '')?.(req.headers, reqBody) ?? { status: 404, body: { error: 'not found' } };
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, status: a.status, body: reqBody });
      const body = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      if (a.chunked) {
        res.write(body.slice(0, body.length >> 1));
        res.end(body.slice(body.length >> 1));
      } else res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const s: CardServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    route,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  t.teardown(() => {
    server.closeAllConnections();
    return s.close();
  });
  return s;
}

/** The two A2A versions a fake remote speaks. */
export type Dialect = '0.3' | '1.0';

/** The card of agent `name` on the card server at `base` (JSON-RPC at `${base}/${name}/rpc`), in `dialect`. */
export function remoteCard(o: { base: string; name: string; dialect: Dialect; streaming: boolean }) {
  const url = `${o.base}/${o.name}/rpc`;
  const common = { name: o.name, description: '', version: '1', capabilities: { streaming: o.streaming } };
  return o.dialect === '0.3'
    ? { ...common, url, protocolVersion: '0.3.0' }
    : { ...common, supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
}

/** A streaming call's answer: an event stream of one JSON-RPC response per result, each carrying the request's `id`. */
export const sseAnswer = (id: unknown, results: readonly unknown[]): Answer => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: results.map((result) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`).join(''),
});

/**
 * Routes a 0.3 remote agent `name` on `s`: its card, and a JSON-RPC endpoint that answers every call with a completed
 * task (`rt-1`, or in `state` when given) holding one text artifact.
 */
export function serveCompletedRemote(s: CardServer, o: { name: string; text: string; state?: string }): void {
  s.route.set(`/${o.name}/.well-known/agent-card.json`, () => ({
    status: 200,
    body: remoteCard({ base: s.url, name: o.name, dialect: '0.3', streaming: false }),
  }));
  s.route.set(`/${o.name}/rpc`, (_h, body) => {
    const id = JSON.parse(body).id;
    const task = {
      kind: 'task',
      id: 'rt-1',
      contextId: 'c-1',
      status: { state: o.state ?? 'completed' },
      artifacts: [{ artifactId: 'a1', parts: [{ kind: 'text', text: o.text }] }],
    };
    return { status: 200, body: { jsonrpc: '2.0', id, result: task } };
  });
}
