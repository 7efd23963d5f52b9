// Test support: a relay's end of the tunnel, as a real WebSocket client (the `ws` package) sending msgpack frames.
import { pack, unpack } from 'msgpackr';
import WebSocket from 'ws';
import { TUNNEL_PATH } from '../../src/protocol/tunnel.js';

export interface TunnelClient {
  ws: WebSocket;
  /** every frame the gateway sent, decoded */
  frames: any[];
  /** the next frame (already received or coming) matching `pred` */
  next(pred?: (f: any) => boolean): Promise<any>;
  send(frame: unknown): void;
  raw(bytes: Buffer | string): void;
  /** resolves with the close code when the gateway (or anyone) closes the tunnel */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export type Upgrade = { ok: true; client: TunnelClient } | { ok: false; status: number; body: string; headers: Record<string, string | string[] | undefined> };

const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws') + TUNNEL_PATH;

/** `maxPayload`: the largest frame this end takes (the relay's is MAX_FRAME_BYTES; a larger one closes the tunnel, 1009). */
export function openTunnel(o: { url: string; key?: string; ca?: Buffer; maxPayload?: number }): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(o.url), {
      headers: o.key ? { Authorization: `Bearer ${o.key}` } : {},
      ca: o.ca,
      ...(o.maxPayload !== undefined && { maxPayload: o.maxPayload }),
    });
    const frames: any[] = [];
    const waiters: Array<{ pred: (f: any) => boolean; resolve: (f: any) => void; from: number }> = [];
    let closedResolve!: (c: { code: number; reason: string }) => void;
    const closed = new Promise<{ code: number; reason: string }>((r) => (closedResolve = r));
    ws.on('message', (data: Buffer) => {
      const f = unpack(data);
      frames.push(f);
      for (const w of [...waiters])
        if (w.pred(f)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(f);
        }
    });
    ws.on('close', (code, reason) => {
      closedResolve({ code, reason: reason.toString() });
      for (const w of waiters.splice(0)) w.resolve(undefined);
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    ws.on('error', (e) => reject(e));
    let seen = 0;
    const client: TunnelClient = {
      ws,
      frames,
      next(pred = () => true) {
        for (let i = seen; i < frames.length; i++)
          if (pred(frames[i])) {
            seen = i + 1;
            return Promise.resolve(frames[i]);
          }
        if (ws.readyState === WebSocket.CLOSED) return Promise.resolve(undefined);
        return new Promise((r) =>
          waiters.push({
            pred,
            from: frames.length,
            resolve: (f) => {
              seen = frames.length;
              r(f);
            },
          }),
        );
      },
      send: (frame) => ws.send(pack(frame)),
      raw: (bytes) => ws.send(bytes),
      closed,
      close: () => ws.close(),
    };
    ws.on('open', () => resolve({ ok: true, client }));
  });
}

/** Opens the tunnel, says hello with `agents`, and waits for the answer (welcome, or error then close). */
export async function connectRelay(o: { url: string; key: string; workspace: string; agents: unknown[]; ca?: Buffer; maxPayload?: number }) {
  const up = await openTunnel(o);
  if (!up.ok) throw new Error(`tunnel refused: ${up.status} ${up.body}`);
  up.client.send({ t: 'hello', v: 1, workspace: o.workspace, agents: o.agents });
  const answer = await up.client.next((f) => f.t === 'welcome' || f.t === 'error');
  return { client: up.client, answer };
}

/** Answers every `run` frame (of agent `only`, when given) with the text it got (an echo), as a relay would. */
export function echoTurns(c: TunnelClient, only?: string): void {
  c.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run' || (only !== undefined && f.agent !== only)) return;
    const text = f.message.parts.map((p: any) => p.text ?? '').join('');
    c.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'working' } });
    c.send({ t: 'event', sid: f.sid, event: { type: 'artifact', artifact: { name: 'echo', parts: [{ kind: 'text', text: `echo: ${text}` }] } } });
    c.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'completed' } });
    c.send({ t: 'done', sid: f.sid });
  });
}
