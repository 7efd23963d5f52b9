// Bench streams section, the chunk stream rows: one task whose agent streams N one-byte artifact chunks as fast as it
// can (bench/agents/chunks.js for ours, the SDK stream server's "chunks" executor), read by one message/stream while a
// probe calls tasks/get of another task every 10 ms (bench/chunk-client.ts); per server: time to complete, chunks
// delivered, the probe's latency (how long the stream holds other callers up), peak RSS. Its table and ratio line.
import type { ChunkResult, ChunkSpec } from './chunk-client.js';
import { sectionLog } from './log.js';
import { LABELS, measureRow, rssSampler, type StreamTarget, startClient, startServer, startTask } from './stream-procs.js';

export interface ChunkRow {
  target: StreamTarget;
  label: string;
  chunks: number;
  result?: ChunkResult;
  peakRssKiB?: number;
  failure?: string;
}

/** chunk i is ALPHABET[i % 36]: a chunk lost, repeated or out of place shows as the wrong character where it lands */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PROBE_EVERY_MS = 10;
const log = sectionLog('streams');

export async function chunkRow(target: StreamTarget, o: { chunks: number; runTimeoutMs: number; workDir: string }): Promise<ChunkRow> {
  const row: ChunkRow = { target, label: LABELS[target], chunks: o.chunks };
  return measureRow(row, async (h) => {
    log(`${target} chunk stream ${o.chunks}: starting server`);
    const server = (h.server = await startServer(target, o.workDir));
    // the probe's task: another task, settled at once (ours: the builtin slow agent; the SDK: its "slow" executor)
    const probeTaskId = await startTask(server, 'slow', { ms: 1, steps: 1 });
    h.sampler = rssSampler(server.pid);
    const spec: ChunkSpec = {
      port: server.port,
      authorization: server.authorization,
      agentId: 'chunks',
      chunks: o.chunks,
      alphabet: ALPHABET,
      probeTaskId,
      probeEveryMs: PROBE_EVERY_MS,
      runTimeoutMs: o.runTimeoutMs,
    };
    const client = (h.client = startClient('bench/chunk-client.ts', spec));
    const r = (row.result = await client.next<ChunkResult>('RESULT', o.runTimeoutMs + 60_000));
    log(`${target} chunk stream: ${r.delivered}/${r.chunks} in ${Math.round(r.completeMs)} ms; probe worst ${Math.round(r.probe.worstMs)} ms`);
  });
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (kib: number | undefined): string => (kib === undefined ? '—' : fmt(kib / 1024, 1));
const cell = (s: string): string => s.replace(/\s+/g, ' ').replace(/[`|]/g, ' ').slice(0, 300);

function notes(r: ChunkRow, runTimeoutMs: number): string {
  const res = r.result;
  const out: string[] = [];
  if (r.failure !== undefined) out.push(`**FAILED**: ${cell(r.failure)}`);
  if (res !== undefined) {
    if (res.timedOut) out.push(`**timed out** after ${fmt(runTimeoutMs / 1000)} s`);
    if (res.missing !== 0) out.push(res.missing > 0 ? `**${fmt(res.missing)} chunks missing**` : `**${fmt(-res.missing)} chunks too many**`);
    if (res.outOfOrder > 0) out.push(`**${fmt(res.outOfOrder)} chunks out of place** (first at ${fmt(res.firstOutOfOrder ?? 0)})`);
    // ours starts the artifact with a full (not append) event: one replacement is expected, more are not
    if (res.replacements > 1) out.push(`${fmt(res.replacements)} artifact replacements`);
    if (res.finalState !== 'completed') out.push(`**task ${res.finalState ?? 'without a final event'}**`);
    if (res.errorFrames > 0) out.push(`${fmt(res.errorFrames)} error events (${cell(res.errorSample).slice(0, 160)})`);
    if (res.probe.errors > 0) out.push(`**${fmt(res.probe.errors)} probe calls failed**`);
    if (out.length === 0) out.push('ok: every chunk, in order; task completed');
  }
  return out.join('; ');
}

export function chunkTable(rows: ChunkRow[], runTimeoutMs: number): string[] {
  const out = [
    '| server | chunks | **time to complete s** | delivered | missing | artifact events | probe calls | probe p50 ms | probe p99 ms | **probe worst ms** | server peak RSS MiB | notes |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    const res = r.result;
    const p = res?.probe;
    out.push(
      `| ${r.label} | ${fmt(r.chunks)} | ${res ? fmt(res.completeMs / 1000, 2) : '—'} | ${res ? fmt(res.delivered) : '—'} | ${res ? fmt(res.missing) : '—'} | ${res ? fmt(res.artifactEvents) : '—'} | ${p ? fmt(p.sent) : '—'} | ${p ? fmt(p.p50Ms, 1) : '—'} | ${p ? fmt(p.p99Ms, 1) : '—'} | ${p ? fmt(p.worstMs, 1) : '—'} | ${mib(r.peakRssKiB)} | ${notes(r, runTimeoutMs)} |`,
    );
  }
  return out;
}

export function chunkRatios(rows: ChunkRow[]): string[] {
  const a = rows.find((r) => r.target === 'gateway')?.result;
  const b = rows.find((r) => r.target === 'sdk')?.result;
  if (a === undefined || b === undefined || b.completeMs <= 0 || b.probe.worstMs <= 0) return [];
  return [
    `- chunk stream (${fmt(a.chunks)} chunks), ours / SDK: time to complete ${fmt(a.completeMs / b.completeMs, 2)}×, probe worst ${fmt(a.probe.worstMs / b.probe.worstMs, 2)}× (below 1× means ours is better)`,
  ];
}
