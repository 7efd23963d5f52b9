// Bench streams section: concurrent idle SSE streams (memory per stream) and fan-out of one task's
// events to many subscribers (events/s), for our gateway and the official @a2a-js/sdk 0.3 server in
// the same run. Each server runs alone, pinned to core 0; the client (bench/stream-client.ts, raw
// node:net) is one child pinned to core 1. Both children get `ulimit -n 65536` when the box allows
// it, else the hard limit. Run by `npm run bench` (BENCH_SECTIONS) or alone:
//   node --import tsx bench/streams.ts
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { envInt, loadNow } from './env.js';
import { errText, sectionLog } from './log.js';
import { createKey } from './gateway-target.js';
import { killAll, spawnPinned, stop, waitListening } from './proc.js';
import type { FanoutResult, FanoutSpec, IdleResult, IdleSpec, OpenSummary } from './stream-client.js';
import { LOAD_CORE, ROOT, SERVER_CORE } from './targets.js';

export type StreamTarget = 'gateway' | 'sdk';
const LABELS: Record<StreamTarget, string> = { gateway: 'ours (gateway)', sdk: '@a2a-js/sdk 0.3 (express)' };

export interface StreamsOptions {
  targets: StreamTarget[];
  /** idle streams to open per server */
  streams: number;
  /** idle tasks the streams are spread over */
  idleTasks: number;
  holdSeconds: number;
  fanoutSubs: number[];
  fanoutEvents: number;
  /** connections waiting for their first event at a time */
  concurrency: number;
  openTimeoutMs: number;
  runTimeoutMs: number;
}

export interface IdleRow {
  target: StreamTarget;
  label: string;
  asked: number;
  result?: IdleResult;
  rssBeforeKiB?: number;
  rssHeldKiB?: number;
  peakRssKiB?: number;
  failure?: string;
}

export interface FanoutRow {
  target: StreamTarget;
  label: string;
  subs: number;
  events: number;
  result?: FanoutResult;
  peakRssKiB?: number;
  failure?: string;
}

export interface StreamsOutcome {
  options: StreamsOptions;
  idle: IdleRow[];
  fanout: FanoutRow[];
  nofile: { server?: number; client?: number; wanted: number };
  load: { start: string; end: string };
  error?: string;
}

const WANT_NOFILE = 65536;
// raise the open-files limit for the exec'd process; fall back to the hard limit when not allowed
const NOFILE_WRAP = `ulimit -n ${WANT_NOFILE} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`;
const log = sectionLog('streams');

export function streamsOptions(env = process.env): StreamsOptions {
  const targetSpec = env.BENCH_TARGETS ?? '';
  const targets = (targetSpec.trim() === '' ? ['gateway', 'sdk'] : targetSpec.split(',').map((s) => s.trim())).filter(
    (t): t is StreamTarget => t === 'gateway' || t === 'sdk',
  );
  const subsSpec = env.BENCH_FANOUT_SUBS ?? '100,1000';
  const fanoutSubs = subsSpec
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const streams = envInt('BENCH_STREAMS', 10_000);
  return {
    targets,
    streams,
    idleTasks: Math.min(10, streams),
    holdSeconds: envInt('BENCH_STREAMS_HOLD', 20),
    fanoutSubs,
    fanoutEvents: envInt('BENCH_FANOUT_EVENTS', 1000),
    concurrency: 256,
    openTimeoutMs: 120_000,
    runTimeoutMs: 180_000,
  };
}

// ---------------------------------------------------------------- processes

function rssKiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

function nofileOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m === null ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every 200 ms and keeps the peak. */
function rssSampler(pid: number | undefined): { peak: () => number | undefined; stop: () => void } {
  let peak: number | undefined;
  const take = (): void => {
    const v = rssKiB(pid);
    if (v !== undefined && (peak === undefined || v > peak)) peak = v;
  };
  take();
  const timer = setInterval(take, 200);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

function spawnWithNofile(core: number, args: string[], stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawnPinned(core, 'bash', ['-c', NOFILE_WRAP, 'bash', process.execPath, ...args], ROOT, undefined, stdin);
}

/** Watches a child's exit and keeps the tail of its stderr, so a crash can be told precisely. */
function watch(child: ChildProcess): { exited: () => string | undefined } {
  let exit: string | undefined;
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-1500)));
  child.once('exit', (code, signal) => {
    exit = `exited (code ${code}, signal ${signal})${err.trim() === '' ? '' : `; stderr tail: ${err.trim().slice(-600)}`}`;
  });
  return { exited: () => exit };
}

interface Server {
  endpoint: string;
  port: number;
  authorization?: string;
  pid?: number;
  exited: () => string | undefined;
  shutdown: () => Promise<void>;
}

async function startServer(target: StreamTarget, workDir: string): Promise<Server> {
  let args: string[];
  let authorization: string | undefined;
  const dataDir = mkdtempSync(join(workDir, `${target}-`));
  if (target === 'gateway') {
    const config = join(dataDir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        agents: [
          { id: 'slow', name: 'Slow', entry: 'slow', default: true, timeoutMs: 3_600_000 },
          { id: 'ticker', name: 'Ticker', kind: 'module', entry: join(ROOT, 'bench', 'agents', 'ticker.js'), timeoutMs: 600_000 },
        ],
      }),
    );
    const storeDir = join(dataDir, 'data');
    authorization = `Bearer ${await createKey(ROOT, storeDir)}`;
    args = ['bin/a2a-gateway.js', 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', storeDir, '--config', config];
  } else {
    args = ['--import', 'tsx', 'bench/sdk-stream-server.ts'];
  }
  const child = spawnWithNofile(SERVER_CORE, args);
  const watcher = watch(child);
  const shutdown = async (): Promise<void> => {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const base = await waitListening(child, target === 'gateway' ? 'gateway' : 'sdk-stream-server');
    return { endpoint: `${base}/api/a2a`, port: Number(new URL(base).port), authorization, pid: child.pid, exited: watcher.exited, shutdown };
  } catch (err) {
    await shutdown();
    throw err;
  }
}

/** Starts a task without waiting for it (configuration.blocking = false); returns its id. */
async function startTask(server: Server, agentId: string, data: Record<string, unknown>): Promise<string> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'start',
    method: 'message/send',
    params: {
      configuration: { blocking: false },
      message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'data', data }], metadata: { agentId } },
    },
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (server.authorization !== undefined) headers.authorization = server.authorization;
  const res = await fetch(server.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let id: unknown;
  try {
    id = (JSON.parse(text) as { result?: { id?: unknown } }).result?.id;
  } catch {
    // reported below
  }
  if (res.status !== 200 || typeof id !== 'string') throw new Error(`starting a ${agentId} task failed: HTTP ${res.status} ${text.slice(0, 300)}`);
  return id;
}

interface Client {
  pid?: number;
  next<T>(tag: string, timeoutMs: number): Promise<T>;
  send(line: string): void;
  done(): Promise<void>;
}

function startClient(spec: IdleSpec | FanoutSpec): Client {
  const child = spawnWithNofile(LOAD_CORE, ['--import', 'tsx', 'bench/stream-client.ts', JSON.stringify(spec)], 'pipe');
  const watcher = watch(child);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  child.stdout?.on('data', (b: Buffer) => {
    buf += b.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  child.once('exit', () =>
    setImmediate(() => {
      for (const w of waiters.splice(0)) w();
    }),
  );
  return {
    pid: child.pid,
    async next<T>(tag: string, timeoutMs: number): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = lines.findIndex((l) => l.startsWith(`${tag} `) || l.startsWith('FAILED '));
        if (i >= 0) {
          const line = lines.splice(i, 1)[0]!;
          if (line.startsWith('FAILED ')) throw new Error(`stream client failed: ${line.slice(7, 600)}`);
          return JSON.parse(line.slice(tag.length + 1)) as T;
        }
        const exit = watcher.exited();
        if (exit !== undefined) throw new Error(`stream client ${exit} before ${tag}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`stream client printed no ${tag} within ${Math.round(timeoutMs / 1000)} s`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 1000));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    send(line: string) {
      if (child.stdin?.writable === true) child.stdin.write(`${line}\n`);
    },
    done: () => stop(child),
  };
}

// ---------------------------------------------------------------- rows

/** What one row starts: each is stopped, and the server's peak memory and exit read, however the row ends. */
interface RowParts {
  server?: Server;
  client?: Client;
  sampler?: ReturnType<typeof rssSampler>;
}

async function measureRow<R extends { failure?: string; peakRssKiB?: number }>(row: R, body: (h: RowParts) => Promise<void>): Promise<R> {
  const h: RowParts = {};
  try {
    await body(h);
    const exit = h.server?.exited();
    if (exit !== undefined) row.failure = `server ${exit}`;
  } catch (err) {
    row.failure = h.server?.exited() !== undefined ? `server ${h.server.exited()} (${errText(err)})` : errText(err);
  } finally {
    h.sampler?.stop();
    row.peakRssKiB = h.sampler?.peak();
    await h.client?.done();
    await h.server?.shutdown();
  }
  return row;
}

async function idleRow(target: StreamTarget, o: StreamsOptions, workDir: string, nofile: StreamsOutcome['nofile']): Promise<IdleRow> {
  const row: IdleRow = { target, label: LABELS[target], asked: o.streams };
  return measureRow(row, async (h) => {
    log(`${target} idle: starting server`);
    const server = (h.server = await startServer(target, workDir));
    nofile.server = nofileOf(server.pid);
    const taskIds: string[] = [];
    for (let i = 0; i < o.idleTasks; i++) taskIds.push(await startTask(server, 'slow', { ms: 3_600_000, steps: 1 }));
    const base = {
      mode: 'idle' as const,
      port: server.port,
      authorization: server.authorization,
      taskIds,
      concurrency: o.concurrency,
      openTimeoutMs: o.openTimeoutMs,
    };
    // warm-up: open and drop a few hundred streams so the baseline has the stream code paths compiled
    log(`${target} idle: warm-up`);
    const warm = startClient({ ...base, n: Math.min(500, o.streams), holdMaxMs: 30_000 });
    await warm.next<OpenSummary>('OPENED', o.openTimeoutMs + 30_000);
    warm.send('close');
    await warm.next<IdleResult>('RESULT', 30_000);
    await warm.done();
    await sleep(3000);
    row.rssBeforeKiB = rssKiB(server.pid);
    h.sampler = rssSampler(server.pid);
    log(`${target} idle: opening ${o.streams} streams`);
    const client = (h.client = startClient({ ...base, n: o.streams, holdMaxMs: o.openTimeoutMs + o.holdSeconds * 1000 + 120_000 }));
    nofile.client = nofileOf(client.pid);
    const opened = await client.next<OpenSummary>('OPENED', o.openTimeoutMs + 60_000);
    log(`${target} idle: ${opened.opened} open, ${opened.failures} failed in ${opened.openMs} ms; holding ${o.holdSeconds}s`);
    await sleep(o.holdSeconds * 1000);
    row.rssHeldKiB = rssKiB(server.pid);
    client.send('close');
    row.result = await client.next<IdleResult>('RESULT', 60_000);
  });
}

async function fanoutRow(target: StreamTarget, subs: number, o: StreamsOptions, workDir: string): Promise<FanoutRow> {
  const row: FanoutRow = { target, label: LABELS[target], subs, events: o.fanoutEvents };
  return measureRow(row, async (h) => {
    log(`${target} fan-out ${subs}×${o.fanoutEvents}: starting server`);
    const server = (h.server = await startServer(target, workDir));
    const gatePath = join(workDir, `gate-${target}-${subs}-${Date.now()}`);
    const taskId = await startTask(server, 'ticker', { events: o.fanoutEvents, gate: gatePath, gateTimeoutMs: o.openTimeoutMs + 60_000 });
    h.sampler = rssSampler(server.pid);
    const client = (h.client = startClient({
      mode: 'fanout',
      port: server.port,
      authorization: server.authorization,
      taskId,
      subs,
      events: o.fanoutEvents,
      gatePath,
      concurrency: o.concurrency,
      openTimeoutMs: o.openTimeoutMs,
      runTimeoutMs: o.runTimeoutMs,
    }));
    row.result = await client.next<FanoutResult>('RESULT', o.openTimeoutMs + o.runTimeoutMs + 60_000);
    const r = row.result;
    log(`${target} fan-out ${subs}×${o.fanoutEvents}: ${r.delivered}/${r.expected} delivered in ${Math.round(r.spanMs)} ms, ${r.missing} missing`);
  });
}

export async function runStreamsSection(o: StreamsOptions = streamsOptions()): Promise<StreamsOutcome> {
  const outcome: StreamsOutcome = { options: o, idle: [], fanout: [], nofile: { wanted: WANT_NOFILE }, load: { start: loadNow(), end: '' } };
  const workDir = mkdtempSync(join(tmpdir(), 'a2a-bench-streams-'));
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  process.on('exit', removeWorkDir);
  try {
    for (const t of o.targets) outcome.idle.push(await idleRow(t, o, workDir, outcome.nofile));
    for (const subs of o.fanoutSubs) for (const t of o.targets) outcome.fanout.push(await fanoutRow(t, subs, o, workDir));
  } catch (err) {
    outcome.error = errText(err);
  } finally {
    removeWorkDir();
    process.off('exit', removeWorkDir);
  }
  outcome.load.end = loadNow();
  return outcome;
}

// ---------------------------------------------------------------- report

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (kib: number | undefined): string => (kib === undefined ? '—' : fmt(kib / 1024, 1));
const cell = (s: string): string => s.replace(/\s+/g, ' ').replace(/[`|]/g, ' ').slice(0, 300);
const kinds = (k: Record<string, number>): string =>
  Object.entries(k)
    .map(([n, c]) => `${fmt(c)}× ${n}`)
    .join(', ');

function perStream(r: IdleRow): number | undefined {
  if (r.result === undefined || r.rssBeforeKiB === undefined || r.rssHeldKiB === undefined || r.result.opened === 0) return undefined;
  return (r.rssHeldKiB - r.rssBeforeKiB) / r.result.opened;
}

function idleTable(o: StreamsOutcome): string[] {
  const out = [
    '| server | streams asked | held (first event ok) | failures | time to open all s | RSS before MiB | RSS holding MiB | **KiB per idle stream** | still open after hold | notes |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of o.idle) {
    const res = r.result;
    const per = perStream(r);
    const notes: string[] = [];
    if (r.failure !== undefined) notes.push(`**FAILED**: ${cell(r.failure)}`);
    if (res !== undefined && res.failures > 0) notes.push(`failures: ${kinds(res.failureKinds)}; first: ${cell(res.failureSample).slice(0, 160)}`);
    if (res !== undefined && res.endedWhileHeld > 0) notes.push(`${fmt(res.endedWhileHeld)} streams ended by the server while idle`);
    if (notes.length === 0 && res !== undefined) notes.push(res.opened === res.asked ? 'ok' : 'partial');
    out.push(
      `| ${r.label} | ${fmt(r.asked)} | ${res ? fmt(res.opened) : '—'} | ${res ? fmt(res.failures) : '—'} | ${res ? fmt(res.openMs / 1000, 2) : '—'} | ${mib(r.rssBeforeKiB)} | ${mib(r.rssHeldKiB)} | ${per === undefined ? '—' : fmt(per, 1)} | ${res ? fmt(res.alive) : '—'} | ${notes.join('; ')} |`,
    );
  }
  return out;
}

function fanoutTable(o: StreamsOutcome): string[] {
  const out = [
    '| server | subscribers | events each | delivered | missing | **events/s delivered** | first→last tick s | subscribers complete | server peak RSS MiB | client CPU % | notes |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of o.fanout) {
    const res = r.result;
    const notes: string[] = [];
    if (r.failure !== undefined) notes.push(`**FAILED**: ${cell(r.failure)}`);
    if (res !== undefined) {
      if (res.failures > 0) notes.push(`${fmt(res.failures)} subscribers not attached (${kinds(res.failureKinds)})`);
      if (res.timedOut) notes.push(`**timed out** after ${fmt(o.options.runTimeoutMs / 1000)} s`);
      if (res.missing > 0) notes.push(`**${fmt(res.missing)} events missing**`);
      if (res.duplicates > 0) notes.push(`${fmt(res.duplicates)} duplicates`);
      if (res.outOfOrder > 0) notes.push(`${fmt(res.outOfOrder)} out of order`);
      if (res.errorFrames > 0) notes.push(`${fmt(res.errorFrames)} JSON-RPC error events`);
      if (res.finals < res.opened) notes.push(`${fmt(res.opened - res.finals)} streams without the final event`);
      if (notes.length === 0) notes.push('ok: every subscriber got every event, in order, and the final one');
    }
    const rate = res !== undefined && res.spanMs > 0 ? fmt(res.delivered / (res.spanMs / 1000)) : '—';
    out.push(
      `| ${r.label} | ${fmt(r.subs)} | ${fmt(r.events)} | ${res ? fmt(res.delivered) : '—'} | ${res ? fmt(res.missing) : '—'} | ${rate} | ${res ? fmt(res.spanMs / 1000, 2) : '—'} | ${res ? `${fmt(res.complete)} / ${fmt(r.subs)}` : '—'} | ${mib(r.peakRssKiB)} | ${res ? fmt(res.clientCpuPct) : '—'} | ${notes.join('; ')} |`,
    );
  }
  return out;
}

function ratios(o: StreamsOutcome): string[] {
  const out: string[] = [];
  const g = o.idle.find((r) => r.target === 'gateway');
  const s = o.idle.find((r) => r.target === 'sdk');
  const pg = g && perStream(g);
  const ps = s && perStream(s);
  if (pg !== undefined && ps !== undefined && ps > 0)
    out.push(`- memory per idle stream, ours / SDK: ${fmt(pg / ps, 2)}× (below 1× means ours holds a stream in less memory)`);
  for (const subs of o.options.fanoutSubs) {
    const a = o.fanout.find((r) => r.target === 'gateway' && r.subs === subs)?.result;
    const b = o.fanout.find((r) => r.target === 'sdk' && r.subs === subs)?.result;
    if (a && b && a.spanMs > 0 && b.spanMs > 0) {
      out.push(`- fan-out to ${fmt(subs)} subscribers, events/s ours / SDK: ${fmt(a.delivered / a.spanMs / (b.delivered / b.spanMs), 2)}×`);
    }
  }
  return out;
}

export function renderStreams(o: StreamsOutcome): string[] {
  const op = o.options;
  const nf = o.nofile;
  const limitNote =
    nf.server !== undefined && nf.server < nf.wanted ? ` — **${fmt(nf.wanted)} could not be set** (hard limit; raising it needs CAP_SYS_RESOURCE)` : '';
  return [
    '## Streams (SSE): idle streams and fan-out',
    '',
    `Each server alone on core 0, one client process (raw \`node:net\`, HTTP/1.1 by hand) on core 1; all on 127.0.0.1. ` +
      `Open-files limit: server ${nf.server ?? '?'}, client ${nf.client ?? '?'} (asked for ${fmt(nf.wanted)})${limitNote}. ` +
      `Load average (1/5/15 min) at section start: ${o.load.start}, at end: ${o.load.end}.`,
    ...(o.error !== undefined ? ['', `**streams section aborted**: ${cell(o.error)}`] : []),
    '',
    `### Idle streams: ${fmt(op.streams)} \`tasks/resubscribe\` spread over ${op.idleTasks} idle \`slow\` tasks, held ${op.holdSeconds} s`,
    '',
    ...(o.idle.length > 0 ? idleTable(o) : ['not run.']),
    '',
    `### Fan-out: subscribers on one task whose agent emits ${fmt(op.fanoutEvents)} status events as fast as it can`,
    '',
    ...(o.fanout.length > 0 ? fanoutTable(o) : ['not run.']),
    '',
    ...ratios(o),
    '',
  ];
}

// ---------------------------------------------------------------- alone

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  runStreamsSection().then(
    (o) => {
      killAll();
      process.stdout.write(`# Bench streams — ${new Date().toISOString()}\n\n${renderStreams(o).join('\n')}`);
      process.exitCode = o.error === undefined ? 0 : 1;
    },
    (err: unknown) => {
      killAll();
      console.error(err instanceof Error ? err.stack : err);
      process.exitCode = 1;
    },
  );
}
