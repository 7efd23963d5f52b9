// Test support: starts the real gateway on port 0 (real LMDB in a temp dir, or real Redis), makes keys, speaks JSON-RPC over HTTP.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/parse.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { GatewayInstance } from '../../src/gateway-instance.js';
import { startGateway } from '../../src/main.js';
import type { Clock, Timers } from '../../src/runtime/clock.js';
import { createKey } from '../../src/runtime/key-admin.js';
import type { Resolve } from '../../src/runtime/net/guard.js';
import type { Log } from '../../src/runtime/log.js';
import { fetchWithCa } from './https-fetch.js';

/** The secret every test gateway hashes keys with (a child server given A2A_SECRET=TEST_SECRET reads the same keys). */
export const TEST_SECRET = 'test-secret-0123456789abcdef';

export interface TestGateway {
  gw: GatewayInstance;
  url: string;
  dataDir: string;
  /** creates a key on the server's own store; returns the secret key string and its id */
  key(o?: {
    workspace?: string;
    trust?: string;
    scopes?: string[];
    agents?: string[];
    expiresAt?: number | null;
    limits?: { perMinute: number; perHour: number };
  }): Promise<{ key: string; id: string }>;
  rpc(o: RpcOptions): Promise<RpcResult>;
  close(): Promise<void>;
}

export interface RpcOptions {
  method?: string;
  params?: unknown;
  key?: string;
  id?: string | number | null;
  /** raw body instead of an envelope */
  body?: string;
  path?: string;
  headers?: Record<string, string>;
}

export interface RpcResult {
  status: number;
  headers: Headers;
  /** parsed JSON body (undefined for an empty body) */
  json: any;
}

export async function startTestGateway(
  o: {
    config?: ConfigInput;
    clock?: Clock;
    timers?: Timers;
    dataDir?: string;
    lookup?: Resolve;
    log?: Log;
    /** the CA that signed the gateway's certificate (with `config.tls`): `rpc` trusts it */
    ca?: string;
  } = {},
): Promise<TestGateway> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'a2a-test-')));
  const config = parseConfig({ port: 0, host: '127.0.0.1', dataDir, ...o.config });
  const gw = await startGateway({
    config,
    clock: o.clock,
    timers: o.timers,
    lookup: o.lookup,
    log: o.log,
    secret: Buffer.from(TEST_SECRET),
  });
  let n = 0;
  const fetchIt = o.ca === undefined ? fetch : fetchWithCa(o.ca);
  const t: TestGateway = {
    gw,
    url: gw.url,
    dataDir,
    async key(k = {}) {
      const made = await createKey(
        { keys: gw.store.keys, secret: gw.secret, clock: o.clock ?? { now: () => Date.now() } },
        {
          workspace: k.workspace ?? 'ws1',
          trust: k.trust ?? 'admin',
          scopes: k.scopes ?? [],
          agents: k.agents ?? [],
          expiresAt: k.expiresAt ?? null,
          limits: k.limits ?? { perMinute: 100000, perHour: 1000000 },
        },
      );
      return { key: made.key, id: made.record.id };
    },
    async rpc(r) {
      const body = r.body ?? JSON.stringify({ jsonrpc: '2.0', id: r.id === undefined ? `req-${++n}` : r.id, method: r.method, params: r.params });
      const res = await fetchIt(gw.url + (r.path ?? '/api/a2a'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(r.key && { Authorization: `Bearer ${r.key}` }), ...r.headers },
        body,
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await gw.close();
      if (!o.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** A rev B user message. */
export const msgB = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random().toString(36).slice(2)}`, parts: [{ kind: 'text', text }], ...extra },
});

/** A rev B message to the `slow` demo agent: `steps` progress events over `ms` (real sleeps, not the clock). */
export const slowB = (o: { ms: number; steps: number; blocking?: boolean }) => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    parts: [{ kind: 'data', data: { ms: o.ms, steps: o.steps, mode: 'sleep' } }],
    metadata: { agentId: 'slow' },
  },
  ...(o.blocking !== undefined && { configuration: { blocking: o.blocking } }),
});

/** A rev A user message. */
export const msgA = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { role: 'user', parts: [{ type: 'text', text }] },
  ...extra,
});
