// Bench outbound section (client mode): message/send through our gateway to a remote agent — caller → gateway →
// outbound connection → the official SDK 0.3 echo server (bench/sdk-server.ts) — beside the same SDK client calling
// that server directly, in the same run, with the same driver (bench/sdk-driver.ts), concurrency and duration.
// Each row gets a fresh SDK server (its in-memory task store only grows); the gateway runs only in its own row.
import { cpus } from 'node:os';
import { A2AClient } from '@a2a-js/sdk/client';
import { envInt, loadNow } from './env.js';
import { errText, sectionLog } from './log.js';
import { runCli, startGateway } from './gateway-target.js';
import { drive, sendOnce, type DriveResult } from './sdk-driver.js';
import { LOAD_CORE, ROOT, SERVER_CORE, startTsServer, type Running } from './targets.js';

export type OutboundPath = 'direct' | 'gateway';
export const OUTBOUND_LABELS: Record<OutboundPath, string> = {
  direct: 'SDK client → SDK server (direct)',
  gateway: 'caller → gateway → connection → SDK server',
};

/** the remote agent, its connection and the workspace they live in (the bench key's workspace) */
const AGENT = 'remote-echo';
const CONNECTION = 'sdk';
const WORKSPACE = 'bench';
/** one request gives up after this long, so a hung server fails the row instead of the bench */
const REQUEST_TIMEOUT_MS = 30_000;

export interface OutboundOptions {
  seconds: number;
  warmupSeconds: number;
  concurrency: number;
}

export interface OutboundRow {
  path: OutboundPath;
  label: string;
  result?: DriveResult;
  failure?: string;
}

export interface OutboundOutcome {
  options: OutboundOptions;
  rows: OutboundRow[];
  /** where each process ran, as the report prints it */
  placement: string;
  load: { start: string; end: string };
}

const log = sectionLog('outbound');

export function outboundOptions(): OutboundOptions {
  return {
    seconds: envInt('BENCH_OUTBOUND_SECONDS', envInt('BENCH_SECONDS', 10)),
    warmupSeconds: envInt('BENCH_WARMUP', 2),
    concurrency: envInt('BENCH_OUTBOUND_CONCURRENCY', 32),
  };
}

/** With 2 cores the SDK server takes the load core; with more it gets core 2 and the load core is left to the driver. */
const sdkCore = (): number => (cpus().length >= 3 ? 2 : LOAD_CORE);

/** The SDK's fetch option: every request bounded in time, with the gateway's Bearer key when there is one. */
export function fetchWith(authorization?: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (authorization !== undefined) headers.set('Authorization', authorization);
    return fetch(input, { ...init, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  };
}

/** Our gateway with one remote agent whose connection (trust execute: a blocking send) leads to `sdkEndpoint`. */
function startOutboundGateway(sdkEndpoint: string): Promise<Running> {
  return startGateway(SERVER_CORE, ROOT, {
    // the allowlist admits the loopback connection URL past the SSRF guard
    config: { push: { allowlist: ['127.0.0.1'] }, agents: [{ id: AGENT, name: AGENT, kind: 'remote', connection: CONNECTION, workspace: WORKSPACE }] },
    setup: async ({ dataDir, configFile }) => {
      const args = ['connections', 'add', '--data-dir', dataDir, '--config', configFile ?? '', '--workspace', WORKSPACE, '--name', CONNECTION];
      await runCli(ROOT, [...args, '--url', sdkEndpoint, '--auth', 'none', '--trust', 'execute']);
    },
  });
}

async function measurePath(path: OutboundPath, o: OutboundOptions): Promise<OutboundRow> {
  const row: OutboundRow = { path, label: OUTBOUND_LABELS[path] };
  const started: Running[] = [];
  try {
    log(`${path}: starting the SDK echo server on core ${sdkCore()}`);
    const sdk = await startTsServer('sdk-server', 'sdk-server.ts', sdkCore());
    started.push(sdk);
    let client: A2AClient;
    let metadata: Record<string, unknown> | undefined;
    const pids: Record<string, number | undefined> = { sdk: sdk.pid };
    if (path === 'direct') {
      client = await A2AClient.fromCardUrl(`${sdk.endpoint}/.well-known/agent-card.json`, { fetchImpl: fetchWith() });
    } else {
      log(`${path}: starting the gateway on core ${SERVER_CORE} with connection "${CONNECTION}" → ${sdk.endpoint}`);
      const gw = await startOutboundGateway(sdk.endpoint);
      started.push(gw);
      pids.gateway = gw.pid;
      metadata = { agentId: AGENT };
      const base = gw.endpoint.replace(/\/api\/a2a$/, '');
      client = await A2AClient.fromCardUrl(`${base}/.well-known/agent-card.json`, { fetchImpl: fetchWith(gw.authorization) });
    }
    // the same message in both rows (the SDK server ignores the metadata); the first one may wait for the card
    await sendOnce(client, 'outbound check', metadata);
    log(`${path}: one reply checked (a completed Task echoing the text); warm-up ${o.warmupSeconds}s`);
    const warm = await drive({ client, concurrency: o.concurrency, seconds: o.warmupSeconds, metadata });
    if (warm.errors > 0) log(`${path}: ${warm.errors} errors during the warm-up (first: ${warm.sampleBad})`);
    log(`${path}: measuring ${o.seconds}s, ${o.concurrency} in flight`);
    row.result = await drive({ client, concurrency: o.concurrency, seconds: o.seconds, metadata, pids });
    const r = row.result;
    log(`${path}: ${Math.round(r.tasksPerSec)} tasks/s, p50 ${r.p50ms.toFixed(1)} ms, p99 ${r.p99ms.toFixed(1)} ms, ${r.errors} errors`);
  } catch (err) {
    row.failure = errText(err);
    log(`${path}: FAILED: ${row.failure}`);
  } finally {
    for (const s of started.reverse()) await s.shutdown();
  }
  return row;
}

export async function runOutboundSection(o: OutboundOptions = outboundOptions()): Promise<OutboundOutcome> {
  const start = loadNow();
  const rows: OutboundRow[] = [];
  for (const path of ['direct', 'gateway'] as const) rows.push(await measurePath(path, o));
  const driver = cpus().length >= 3 ? 'not pinned (cores 1 and 3+ are free for it)' : 'not pinned (shares both cores with the servers)';
  const placement = `gateway on core ${SERVER_CORE}, SDK echo server on core ${sdkCore()}, load driver (the bench process) ${driver}`;
  return { options: o, rows, placement, load: { start, end: loadNow() } };
}
