// Bench streams section: concurrent idle SSE streams (memory per stream), fan-out of one task's
// events to many subscribers (events/s) and a stream of tiny artifact chunks (bench/chunk-stream.ts), for our gateway and the official @a2a-js/sdk 0.3 server in
// the same run. Each server runs alone, pinned to core 0; the client (bench/stream-client.ts, raw
// node:net) is one child pinned to core 1. Both children get `ulimit -n 65536` when the box allows
// it, else the hard limit. Run by `npm run bench` (BENCH_SECTIONS) or alone:
//   node --import tsx bench/streams.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type ChunkRow, chunkRow, chunkTable, chunkRatios } from './chunk-stream.js';
import { envInt, loadNow } from './env.js';
import { errText, sectionLog } from './log.js';
import { killAll, treeCpuUs } from './proc.js';
import type { FanoutResult, FanoutSpec, IdleResult, IdleSpec, OpenSummary } from './stream-client.js';
import { LABELS, measureRow, nofileOf, rssKiB, rssSampler, type StreamTarget, startClient, startServer, startTask, WANT_NOFILE } from './stream-procs.js';

const STREAM_CLIENT = 'bench/stream-client.ts';

export interface StreamsOptions {
  targets: StreamTarget[];
  /** idle streams to open per server */
  streams: number;
  /** idle tasks the streams are spread over */
  idleTasks: number;
  holdSeconds: number;
  fanoutSubs: number[];
  fanoutEvents: number;
  /** one-byte artifact chunks the chunk stream's agent sends (0: no chunk stream rows) */
  chunks: number;
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
  /** the server's CPU time (all threads) from the gate to the last final event: the agent's run and the fan-out */
  serverCpuUs?: number;
  peakRssKiB?: number;
  failure?: string;
}

export interface StreamsOutcome {
  options: StreamsOptions;
  idle: IdleRow[];
  fanout: FanoutRow[];
  chunk: ChunkRow[];
  nofile: { server?: number; client?: number; wanted: number };
  load: { start: string; end: string };
  error?: string;
}

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
    chunks: envInt('BENCH_CHUNKS', 20_000, { allowZero: true }),
    concurrency: 256,
    openTimeoutMs: 120_000,
    runTimeoutMs: 180_000,
  };
}

// ---------------------------------------------------------------- rows

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
    const warm = startClient(STREAM_CLIENT, { ...base, n: Math.min(500, o.streams), holdMaxMs: 30_000 } satisfies IdleSpec);
    await warm.next<OpenSummary>('OPENED', o.openTimeoutMs + 30_000);
    warm.send('close');
    await warm.next<IdleResult>('RESULT', 30_000);
    await warm.done();
    await sleep(3000);
    row.rssBeforeKiB = rssKiB(server.pid);
    h.sampler = rssSampler(server.pid);
    log(`${target} idle: opening ${o.streams} streams`);
    const client = (h.client = startClient(STREAM_CLIENT, {
      ...base,
      n: o.streams,
      holdMaxMs: o.openTimeoutMs + o.holdSeconds * 1000 + 120_000,
    } satisfies IdleSpec));
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
    const client = (h.client = startClient(STREAM_CLIENT, {
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
    } satisfies FanoutSpec));
    await client.next<OpenSummary>('OPENED', o.openTimeoutMs + 60_000);
    const cpuBefore = server.pid === undefined ? undefined : treeCpuUs(server.pid);
    client.send('go');
    row.result = await client.next<FanoutResult>('RESULT', o.openTimeoutMs + o.runTimeoutMs + 60_000);
    const cpuAfter = server.pid === undefined ? undefined : treeCpuUs(server.pid);
    if (cpuBefore !== undefined && cpuAfter !== undefined) row.serverCpuUs = cpuAfter - cpuBefore;
    const r = row.result;
    log(`${target} fan-out ${subs}×${o.fanoutEvents}: ${r.delivered}/${r.expected} delivered in ${Math.round(r.spanMs)} ms, ${r.missing} missing`);
  });
}

export async function runStreamsSection(o: StreamsOptions = streamsOptions()): Promise<StreamsOutcome> {
  const outcome: StreamsOutcome = { options: o, idle: [], fanout: [], chunk: [], nofile: { wanted: WANT_NOFILE }, load: { start: loadNow(), end: '' } };
  const workDir = mkdtempSync(join(tmpdir(), 'a2a-bench-streams-'));
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  process.on('exit', removeWorkDir);
  try {
    for (const t of o.targets) outcome.idle.push(await idleRow(t, o, workDir, outcome.nofile));
    for (const subs of o.fanoutSubs) for (const t of o.targets) outcome.fanout.push(await fanoutRow(t, subs, o, workDir));
    if (o.chunks > 0) for (const t of o.targets) outcome.chunk.push(await chunkRow(t, { chunks: o.chunks, runTimeoutMs: o.runTimeoutMs, workDir }));
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

/** The server's CPU µs per 1,000 events delivered (summed over subscribers), or undefined when not measured. */
function cpuPerThousand(r: FanoutRow): number | undefined {
  const res = r.result;
  if (r.serverCpuUs === undefined || res === undefined || res.delivered === 0) return undefined;
  return (1000 * r.serverCpuUs) / res.delivered;
}

function fanoutTable(o: StreamsOutcome): string[] {
  const out = [
    '| server | subscribers | events each | delivered | missing | **events/s delivered** | first→last tick s | **events/s from the gate** | gate→last tick s | server CPU µs per 1,000 delivered | subscribers complete | server peak RSS MiB | client CPU % | notes |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
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
    const fromGate = res !== undefined && res.gateToLastMs > 0 ? fmt(res.delivered / (res.gateToLastMs / 1000)) : '—';
    const cpu = cpuPerThousand(r);
    out.push(
      `| ${r.label} | ${fmt(r.subs)} | ${fmt(r.events)} | ${res ? fmt(res.delivered) : '—'} | ${res ? fmt(res.missing) : '—'} | ${rate} | ${res ? fmt(res.spanMs / 1000, 2) : '—'} | ${fromGate} | ${res ? fmt(res.gateToLastMs / 1000, 2) : '—'} | ${cpu === undefined ? '—' : fmt(cpu)} | ${res ? `${fmt(res.complete)} / ${fmt(r.subs)}` : '—'} | ${mib(r.peakRssKiB)} | ${res ? fmt(res.clientCpuPct) : '—'} | ${notes.join('; ')} |`,
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
    if (a && b && a.gateToLastMs > 0 && b.gateToLastMs > 0) {
      out.push(
        `- fan-out to ${fmt(subs)} subscribers, events/s from the gate ours / SDK: ${fmt(a.delivered / a.gateToLastMs / (b.delivered / b.gateToLastMs), 2)}×`,
      );
    }
    const ga = o.fanout.find((r) => r.target === 'gateway' && r.subs === subs);
    const gb = o.fanout.find((r) => r.target === 'sdk' && r.subs === subs);
    const ca = ga && cpuPerThousand(ga);
    const cb = gb && cpuPerThousand(gb);
    if (ca !== undefined && cb !== undefined && cb > 0) {
      out.push(`- fan-out to ${fmt(subs)} subscribers, server CPU per event delivered, ours / SDK: ${fmt(ca / cb, 2)}× (below 1× means ours spends less)`);
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
    '## Streams (SSE): idle streams, fan-out and a chunk stream',
    '',
    `Each server alone on core 0, one client process on core 1 (idle and fan-out: raw \`node:net\`, HTTP/1.1 by hand; chunk stream: \`node:http\`); all on 127.0.0.1. ` +
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
    `### Chunk stream: one task whose agent streams ${fmt(op.chunks)} one-byte artifact chunks (append) as fast as it can; a probe calls \`tasks/get\` of another task every 10 ms meanwhile`,
    '',
    ...(o.chunk.length > 0 ? chunkTable(o.chunk, op.runTimeoutMs) : ['not run.']),
    '',
    ...chunkRatios(o.chunk),
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
