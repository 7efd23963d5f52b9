// Test support: a real webhook receiver (node:http on a loopback address) that records and verifies every delivery.
//
// Verification is written here from the Standard Webhooks scheme, not imported from src: HMAC-SHA256
// keyed with the base64 part of the `whsec_` secret, over "id.timestamp.body", compared to every
// `v1,` entry of webhook-signature.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigInput } from '../../src/config/schema.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { GatewayInstance } from '../../src/gateway-instance.js';
import { startTestGateway, type TestGateway } from './gateway.js';

export interface Delivery {
  n: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the parsed body */
  json: any;
  /** what the receiver answered */
  status: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** never answer (the gateway's timeout must end the attempt) */
  hang?: boolean;
  /** send the status line and a first chunk of the body, then never end it (a slow-loris receiver) */
  endless?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** how the receiver answers request n (1-based); default 200 */
  answer: (n: number, d: Omit<Delivery, 'status'>) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(o: { host?: string; answer?: Receiver['answer'] } = {}): Promise<Receiver> {
  const host = o.host ?? '127.0.0.1';
  let n = 0;
  const r: Receiver = {
    url: '',
    port: 0,
    deliveries: [],
    answer: o.answer ?? (() => ({ status: 200 })),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const base = { n: ++n, path: req.url ?? '', headers: req.headers, body, json };
      const a = r.answer(base.n, base);
      r.deliveries.push({ ...base, status: a.hang ? 0 : a.status });
      if (a.hang) return;
      res.writeHead(a.status, a.headers);
      if (a.endless) res.write('still going');
      else res.end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  const port = (server.address() as AddressInfo).port;
  r.port = port;
  r.url = `http://${host}:${port}/hook`;
  r.close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return r;
}

/** True when `headers` carry a valid Standard Webhooks signature of `body` under `secret`. */
export function verifySignature(o: { secret: string; headers: IncomingHttpHeaders; body: string }): boolean {
  const id = o.headers['webhook-id'];
  const ts = o.headers['webhook-timestamp'];
  const sigs = o.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string' || !/^\d+$/.test(ts)) return false;
  const key = Buffer.from(o.secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${o.body}`).digest();
  return sigs.split(' ').some((s) => {
    const [version, b64] = s.split(',');
    if (version !== 'v1' || !b64) return false;
    const got = Buffer.from(b64, 'base64');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/**
 * Moves the manual clock until `done()` holds: waits for the gateway's push work to settle, checks,
 * then advances by `stepMs` (firing due retries), at most `maxSteps` times. Returns whether `done()` held.
 */
export async function drive(o: { gw: GatewayInstance; clock: ManualClock; stepMs: number; done: () => boolean; maxSteps?: number }): Promise<boolean> {
  for (let i = 0; i < (o.maxSteps ?? 40); i++) {
    await o.gw.push.idle();
    if (o.done()) return true;
    o.clock.advance(o.stepMs);
  }
  await o.gw.push.idle();
  return o.done();
}

/** Every key at any depth of a JSON value. */
export function keysDeep(v: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(v)) for (const x of v) keysDeep(x, out);
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      out.add(k);
      keysDeep(x, out);
    }
  }
  return out;
}

/** Consecutive equal values collapsed: [a, a, b, a] -> [a, b, a]. */
export const runs = <T>(xs: readonly T[]): T[] => xs.filter((x, i) => i === 0 || x !== xs[i - 1]);

/**
 * The stage of a webhook test: a gateway on a ManualClock (its timers too) that may deliver to loopback, with `config`
 * on top (its `push` settings merged over the allowlist), a receiver there and a key; all closed at teardown.
 */
export async function pushStage(
  t: { teardown(fn: () => unknown): void },
  config: ConfigInput = {},
): Promise<{ clock: ManualClock; gw: TestGateway; rx: Receiver; key: string }> {
  const clock = new ManualClock();
  const gw = await startTestGateway({ clock, timers: clock, config: { ...config, push: { allowlist: ['127.0.0.1'], ...config.push } } });
  t.teardown(() => gw.close());
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { key } = await gw.key();
  return { clock, gw, rx, key };
}
