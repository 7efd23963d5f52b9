// Test support: a STAND-IN for the gateway's tunnel endpoint (GET /api/relay), which is being built in parallel. It is a
// small `ws` server that speaks the frames of src/protocol/tunnel.ts as the gateway will: it checks the Bearer key at
// the upgrade (401 otherwise; or any status and headers a test sets), answers hello with welcome, and lets a test send
// run/cancel frames and read what came back. End-to-end tests against the real gateway replace it for the gateway's side.
import { createServer, STATUS_CODES, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Packr } from 'msgpackr';
import { type WebSocket, WebSocketServer } from 'ws';
import { type GatewayFrame, RelayFrame, TUNNEL_PATH, TUNNEL_VERSION } from '../../src/protocol/tunnel.js';

const packr = new Packr({ useRecords: false });

export interface StandInGateway {
  /** ws://127.0.0.1:PORT, or wss:// with `tls` (the relay's gateway_url) */
  url: string;
  port: number;
  /** every frame received, parsed, in order, across connections */
  frames: RelayFrame[];
  /** upgrades answered (accepted or refused) */
  upgrades: Array<{ status: number; authorization: string | undefined }>;
  /** resolves with the first received frame (from index `from` on) that matches */
  waitFor<T extends RelayFrame>(match: (f: RelayFrame) => f is T, from?: number): Promise<T>;
  waitFor(match: (f: RelayFrame) => boolean, from?: number): Promise<RelayFrame>;
  /** resolves once a relay is connected and welcomed (the n-th connection, 1-based) */
  connected(n?: number): Promise<void>;
  send(f: GatewayFrame): void;
  /** sends raw bytes (a frame that does not decode or validate) */
  sendRaw(b: Buffer): void;
  /** pings received from the relay */
  pings(): number;
  /** ends the current connection from the gateway's side */
  drop(): void;
  /** stops reading the current connection (a gateway, or a link to it, slower than the relay), and reads it again */
  pause(): void;
  resume(): void;
  /** the key the upgrade accepts from now on */
  setKey(key: string): void;
  /**
   * From now on every upgrade is refused with this status and these headers (a Retry-After the real gateway never
   * sends, an HTTP-date or a malformed one, as a proxy or another peer might); undefined: upgrades are served again.
   */
  refuse(answer: { status: number; headers?: Record<string, string> } | undefined): void;
  close(): Promise<void>;
}

/** `port`: listen there (a restarted gateway at the same address); 0 by default. `autoPong: false`: a peer that never answers pings. `tls`: serve wss://. */
export async function startStandInGateway(o: { key: string; port?: number; autoPong?: boolean; tls?: { cert: string; key: string } }): Promise<StandInGateway> {
  let key = o.key;
  let refusal: { status: number; headers?: Record<string, string> } | undefined;
  const frames: RelayFrame[] = [];
  const upgrades: StandInGateway['upgrades'] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  let current: WebSocket | undefined;
  let welcomed = 0;
  let pings = 0;

  const wss = new WebSocketServer({ noServer: true, autoPong: o.autoPong ?? true });
  const notFound = (_req: unknown, res: { writeHead(n: number): { end(): void } }) => res.writeHead(404).end();
  const server: Server = o.tls ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, notFound) : createServer(notFound);
  server.on('upgrade', (req, socket, head) => {
    const authorization = req.headers.authorization;
    if (refusal) {
      upgrades.push({ status: refusal.status, authorization });
      const lines = Object.entries(refusal.headers ?? {}).map(([n, v]) => `${n}: ${v}\r\n`);
      socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n${lines.join('')}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      notify();
      return;
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== TUNNEL_PATH || authorization !== `Bearer ${key}`) {
      upgrades.push({ status: 401, authorization });
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    upgrades.push({ status: 101, authorization });
    wss.handleUpgrade(req, socket, head, (ws) => {
      current = ws;
      ws.on('ping', () => {
        pings++;
        notify();
      });
      ws.on('message', (data: Buffer) => {
        const f = RelayFrame.parse(packr.unpack(data));
        frames.push(f);
        if (f.t === 'hello') {
          ws.send(packr.pack({ t: 'welcome', v: TUNNEL_VERSION, relay: 'test-relay', agents: f.agents.map((a) => ({ name: a.name, trust: 'execute' })) }));
          welcomed++;
        }
        notify();
      });
    });
  });
  server.listen(o.port ?? 0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;

  const until = (ok: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!ok()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });

  return {
    url: `${o.tls ? 'wss' : 'ws'}://127.0.0.1:${port}`,
    port,
    frames,
    upgrades,
    async waitFor(match: (f: RelayFrame) => boolean, from = 0) {
      let found: RelayFrame | undefined;
      await until(() => {
        found = frames.slice(from).find(match);
        return found !== undefined;
      });
      return found as never;
    },
    connected: (n = 1) => until(() => welcomed >= n),
    send: (f) => current?.send(packr.pack(f)),
    sendRaw: (b) => current?.send(b),
    pings: () => pings,
    drop: () => current?.terminate(),
    pause: () => current?.pause(),
    resume: () => current?.resume(),
    setKey: (k) => {
      key = k;
    },
    refuse: (answer) => {
      refusal = answer;
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
