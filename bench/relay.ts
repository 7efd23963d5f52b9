// Bench relay section: message/send through our gateway to an agent served by a relay — caller → gateway → tunnel →
// a2a-relay → the official SDK 0.3 echo server (bench/sdk-server.ts) — beside the same SDK client calling that server
// directly, in the same run, with the same driver (bench/sdk-driver.ts), concurrency and duration; plus one row with
// more callers through the one tunnel. Each row gets a fresh SDK server; the gateway and the relay run only in their row.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from '@a2a-js/sdk/client';
import { envInt, loadNow } from './env.js';
import { errText, sectionLog } from './log.js';
import { runCli, startGateway } from './gateway-target.js';
import { fetchWith } from './outbound.js';
import { serverPid, spawnPinned, stop } from './proc.js';
import { drive, sendOnce, type DriveResult } from './sdk-driver.js';
import { LOAD_CORE, ROOT, SERVER_CORE, startTsServer, type Running } from './targets.js';

/**
 * `gateway`: the same caller to the gateway's own echo agent (no tunnel): the gateway's share of the added latency.
 * `floor`: the same caller to the design floor (bench/design-floor.ts): what the parts the design fixes add at least.
 */
export type RelayPath = 'direct' | 'gateway' | 'floor' | 'relay';

/** the relay's one agent, the relay's name on the gateway and the workspace (the bench key's workspace) */
const AGENT = 'local-echo';
const RELAY = 'r';
const WORKSPACE = 'bench';
/** the relay's tunnel up and its agent listed online, or the row fails */
const ONLINE_TIMEOUT_MS = 30_000;

export interface RelayOptions {
  seconds: number;
  warmupSeconds: number;
  /** callers in flight in the direct row and the first tunnel row */
  concurrency: number;
  /** callers in flight in the last row (one tunnel) */
  wideConcurrency: number;
}

export interface RelayRow {
  path: RelayPath;
  label: string;
  concurrency: number;
  result?: DriveResult;
  failure?: string;
}

export interface RelayOutcome {
  options: RelayOptions;
  rows: RelayRow[];
  placement: string;
  load: { start: string; end: string };
}

const log = sectionLog('relay');

export function relayOptions(): RelayOptions {
  return {
    seconds: envInt('BENCH_RELAY_SECONDS', envInt('BENCH_SECONDS', 10)),
    warmupSeconds: envInt('BENCH_WARMUP', 2),
    concurrency: envInt('BENCH_RELAY_CONCURRENCY', 32),
    wideConcurrency: 64,
  };
}

export const RELAY_LABELS: Record<RelayPath, string> = {
  direct: 'SDK client → local SDK echo server (direct)',
  gateway: 'caller → gateway → its own echo agent (no tunnel)',
  floor: 'caller → design floor: pool turn + durable put (no tunnel)',
  relay: 'caller → gateway → tunnel → relay → local SDK echo server',
};

/** Like the outbound section: the SDK server on the load core with 2 cores, core 2 with more; the relay beside it (core 3 with 4+). */
const sdkCore = (): number => (cpus().length >= 3 ? 2 : LOAD_CORE);
const relayCore = (): number => (cpus().length >= 4 ? 3 : sdkCore());

/** `keys create --json` in the gateway's data dir: the relay's own key of the bench workspace, id and secret. */
async function createRelayKey(dataDir: string): Promise<{ id: string; key: string }> {
  const out = await runCli(ROOT, ['keys', 'create', '--data-dir', dataDir, '--workspace', WORKSPACE, '--trust', 'execute', '--name', 'bench-relay', '--json']);
  const parsed = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as { id?: unknown; key?: unknown };
  if (typeof parsed.id !== 'string' || typeof parsed.key !== 'string') throw new Error(`"keys create --json" printed no id and key: ${out.slice(0, 200)}`);
  return { id: parsed.id, key: parsed.key };
}

/** Our gateway with relay `r` registered for a fresh key of the bench workspace; that key comes back for the relay. */
async function startRelayGateway(): Promise<{ gw: Running; relayKey: string }> {
  let relayKey = '';
  const gw = await startGateway(SERVER_CORE, ROOT, {
    setup: async ({ dataDir }) => {
      const k = await createRelayKey(dataDir);
      relayKey = k.key;
      await runCli(ROOT, ['relays', 'add', '--data-dir', dataDir, '--workspace', WORKSPACE, '--name', RELAY, '--key', k.id]);
    },
  });
  return { gw, relayKey };
}

/** `bin/a2a-relay.js` with a config file naming the one local agent, the key, workspace and gateway from the env. */
interface RelayProcess {
  child: ChildProcess;
  /** the end of its stderr, for a failure message */
  tail: () => string;
}

function startRelayProcess(o: { gatewayBase: string; relayKey: string; localUrl: string; dir: string }): RelayProcess {
  const configFile = join(o.dir, 'relay.json');
  writeFileSync(configFile, JSON.stringify({ agents: [{ name: AGENT, description: 'bench echo', local_url: o.localUrl }] }));
  const env = {
    ...process.env,
    SVC_API_KEY: o.relayKey,
    SVC_WORKSPACE_ID: WORKSPACE,
    SVC_GATEWAY_URL: o.gatewayBase.replace(/^http/, 'ws'),
    // any free port for the relay's admin UI: the bench never opens it, and 9090 may be taken on this machine
    SVC_ADMIN_PORT: '0',
  };
  const child = spawnPinned(relayCore(), process.execPath, ['bin/a2a-relay.js', '--config', configFile], ROOT, env);
  // the relay logs JSON lines on stderr: keep the tail for a failure message, and never let a pipe fill up
  let tail = '';
  child.stderr?.on('data', (b: Buffer) => {
    tail = (tail + b.toString()).slice(-2000);
  });
  child.stdout?.resume();
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) log(`relay exited with code ${code}: ${tail}`);
  });
  return { child, tail: () => tail };
}

/** Polls agents/list with the caller's key until the relay's agent is listed online. */
async function waitOnline(gw: Running, relay: RelayProcess): Promise<void> {
  const deadline = Date.now() + ONLINE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    if (relay.child.exitCode !== null) throw new Error(`the relay exited (code ${relay.child.exitCode}) before its agent was online`);
    const res = await fetch(gw.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: gw.authorization ?? '' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} }),
    }).catch((err: unknown) => ({ text: async () => errText(err) }));
    last = await res.text();
    try {
      const agents = (JSON.parse(last) as { result?: { agents?: Array<{ id?: string; online?: boolean }> } }).result?.agents ?? [];
      if (agents.some((a) => a.id === AGENT && a.online === true)) return;
    } catch {
      // not JSON yet: try again
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`"${AGENT}" not online in agents/list within ${ONLINE_TIMEOUT_MS} ms; last reply: ${last.slice(0, 200)}; relay: ${relay.tail().slice(-300)}`);
}

async function measurePath(path: RelayPath, concurrency: number, o: RelayOptions): Promise<RelayRow> {
  const row: RelayRow = { path, label: RELAY_LABELS[path], concurrency };
  const started: Running[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-relay-'));
  try {
    log(`${path} ×${concurrency}: starting the SDK echo server on core ${sdkCore()}`);
    const sdk = await startTsServer('sdk-server', 'sdk-server.ts', sdkCore());
    started.push(sdk);
    let client: A2AClient;
    let metadata: Record<string, unknown> | undefined;
    const pids: Record<string, number | undefined> = { sdk: sdk.pid };
    if (path === 'direct') {
      client = await A2AClient.fromCardUrl(`${sdk.endpoint}/.well-known/agent-card.json`, { fetchImpl: fetchWith() });
    } else if (path === 'gateway') {
      log(`${path} ×${concurrency}: starting the gateway on core ${SERVER_CORE}`);
      const gw = await startGateway(SERVER_CORE, ROOT);
      started.push(gw);
      pids.gateway = gw.pid;
      metadata = { agentId: 'echo' };
      client = await A2AClient.fromCardUrl(`${gw.endpoint.replace(/\/api\/a2a$/, '')}/.well-known/agent-card.json`, { fetchImpl: fetchWith(gw.authorization) });
    } else if (path === 'floor') {
      log(`${path} ×${concurrency}: starting the design floor on core ${SERVER_CORE}`);
      const floor = await startTsServer('design-floor', 'design-floor.ts');
      started.push(floor);
      pids.gateway = floor.pid;
      client = await A2AClient.fromCardUrl(`${floor.endpoint.replace(/\/api\/a2a$/, '')}/.well-known/agent-card.json`, { fetchImpl: fetchWith() });
    } else {
      log(`${path} ×${concurrency}: starting the gateway on core ${SERVER_CORE} with relay "${RELAY}" registered`);
      const { gw, relayKey } = await startRelayGateway();
      started.push(gw);
      pids.gateway = gw.pid;
      const base = gw.endpoint.replace(/\/api\/a2a$/, '');
      log(`${path} ×${concurrency}: starting a2a-relay on core ${relayCore()} → ${base}, agent "${AGENT}" at ${sdk.endpoint}`);
      const relay = startRelayProcess({ gatewayBase: base, relayKey, localUrl: sdk.endpoint, dir });
      started.push({ endpoint: '', shutdown: () => stop(relay.child) });
      await waitOnline(gw, relay);
      pids.relay = serverPid(relay.child, 'relay');
      metadata = { agentId: AGENT };
      client = await A2AClient.fromCardUrl(`${base}/.well-known/agent-card.json`, { fetchImpl: fetchWith(gw.authorization) });
    }
    await sendOnce(client, 'relay check', metadata);
    log(`${path} ×${concurrency}: one reply checked (a completed Task echoing the text); warm-up ${o.warmupSeconds}s`);
    const warm = await drive({ client, concurrency, seconds: o.warmupSeconds, metadata });
    if (warm.errors > 0) log(`${path} ×${concurrency}: ${warm.errors} errors during the warm-up (first: ${warm.sampleBad})`);
    log(`${path} ×${concurrency}: measuring ${o.seconds}s, ${concurrency} in flight`);
    row.result = await drive({ client, concurrency, seconds: o.seconds, metadata, pids });
    const r = row.result;
    log(`${path} ×${concurrency}: ${Math.round(r.tasksPerSec)} tasks/s, p50 ${r.p50ms.toFixed(2)} ms, p99 ${r.p99ms.toFixed(2)} ms, ${r.errors} errors`);
  } catch (err) {
    row.failure = errText(err);
    log(`${path} ×${concurrency}: FAILED: ${row.failure}`);
  } finally {
    for (const s of started.reverse()) await s.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
  return row;
}

export async function runRelaySection(o: RelayOptions = relayOptions()): Promise<RelayOutcome> {
  const start = loadNow();
  const rows: RelayRow[] = [];
  // one caller: the hop's own latency, without queueing; then the loaded pair; then more callers through the one tunnel
  // BENCH_RELAY_ONE=1: only the 1-caller rows (the added latency), for tuning runs
  const oneOnly = process.env.BENCH_RELAY_ONE === '1';
  for (const concurrency of oneOnly ? [1] : [1, o.concurrency]) {
    // at 1 caller the gateway's own echo agent and the design floor too: the added latency split into the gateway's part
    // and the tunnel's, and the least the fixed parts add
    const paths = concurrency === 1 ? (['direct', 'gateway', 'floor', 'relay'] as const) : (['direct', 'relay'] as const);
    for (const path of paths) rows.push(await measurePath(path, concurrency, o));
  }
  if (!oneOnly) rows.push(await measurePath('relay', o.wideConcurrency, o));
  const driver = cpus().length >= 3 ? 'not pinned' : 'not pinned (shares both cores with the servers)';
  const placement = `gateway on core ${SERVER_CORE}, SDK echo server on core ${sdkCore()}, relay on core ${relayCore()}, load driver (the bench process) ${driver}`;
  return { options: o, rows, placement, load: { start, end: loadNow() } };
}
