// Bench load driver for the outbound section: the official @a2a-js/sdk 0.3 A2AClient sending message/send with N
// requests in flight for a fixed time, each reply checked (a completed Task whose artifact echoes the text sent);
// latency per request, and the CPU time of the named server processes (/proc) and of this process over the window.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { MessageSendParams } from '@a2a-js/sdk';
import type { A2AClient } from '@a2a-js/sdk/client';
import { treeCpuUs } from './proc.js';

export interface DriveSpec {
  client: A2AClient;
  /** requests in flight at any time */
  concurrency: number;
  seconds: number;
  /** message.metadata of every request (the gateway picks its agent from `agentId`) */
  metadata?: Record<string, unknown>;
  /** server processes whose CPU time over the window is read, by name */
  pids?: Record<string, number | undefined>;
}

export interface DriveResult {
  /** replies that passed the check */
  ok: number;
  errors: number;
  /** the first failing reply or exception, shortened */
  sampleBad: string;
  /** from the first request sent to the last reply received, µs */
  durationUs: number;
  tasksPerSec: number;
  p50ms: number;
  p99ms: number;
  /** CPU µs over the window per named server process (undefined: not measurable) */
  serverCpuUs: Record<string, number | undefined>;
  /** this process's CPU µs over the window: the driver's own cost (and how close it came to a whole core) */
  driverCpuUs: number;
}

export function sendParams(text: string, metadata?: Record<string, unknown>): MessageSendParams {
  return {
    message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }], ...(metadata && { metadata }) },
    configuration: { blocking: true },
  };
}

/** Why a send's reply is not the completed echo of `text`, or undefined when it is. */
export function badReply(reply: unknown, text: string): string | undefined {
  const r = reply as {
    error?: unknown;
    result?: {
      kind?: unknown;
      status?: { state?: unknown; message?: { parts?: Array<{ text?: unknown }> } };
      artifacts?: Array<{ parts?: Array<{ text?: unknown }> }>;
    };
  };
  if (r === null || typeof r !== 'object') return `not an object: ${String(reply)}`;
  if (r.error !== undefined) return `JSON-RPC error ${JSON.stringify(r.error)}`;
  const task = r.result;
  if (task?.kind !== 'task') return `not a Task: ${JSON.stringify(reply).slice(0, 200)}`;
  if (task.status?.state !== 'completed') {
    // the status message says why (a failed turn's reason), which is what a reader of an INVALID row needs
    const why = task.status?.message?.parts?.map((p) => p.text).find((t) => typeof t === 'string');
    return `state ${String(task.status?.state)}, not completed${why ? ` (${why.slice(0, 200)})` : ''}`;
  }
  const echoed = task.artifacts?.some((a) => a.parts?.some((p) => p.text === text));
  return echoed ? undefined : `no artifact echoing "${text}": ${JSON.stringify(task.artifacts).slice(0, 200)}`;
}

/** One request, checked; throws with the reason when the reply is not the completed echo. */
export async function sendOnce(client: A2AClient, text: string, metadata?: Record<string, unknown>): Promise<unknown> {
  const reply = await client.sendMessage(sendParams(text, metadata));
  const bad = badReply(reply, text);
  if (bad !== undefined) throw new Error(bad);
  return reply;
}

const pct = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

function cpuOf(pids: Record<string, number | undefined>): Record<string, number | undefined> {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid === undefined ? undefined : treeCpuUs(pid)]));
}

export async function drive(spec: DriveSpec): Promise<DriveResult> {
  const pids = spec.pids ?? {};
  const latencies: number[] = [];
  let errors = 0;
  let sampleBad = '';
  let seq = 0;
  const fail = (why: string): void => {
    errors++;
    if (sampleBad === '') sampleBad = why.slice(0, 300);
  };
  const cpuBefore = cpuOf(pids);
  const driverBefore = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + spec.seconds * 1000;
  let last = t0;
  const lane = async (): Promise<void> => {
    while (performance.now() < end) {
      const text = `hello ${seq++}`;
      const start = performance.now();
      try {
        const bad = badReply(await spec.client.sendMessage(sendParams(text, spec.metadata)), text);
        last = performance.now();
        if (bad === undefined) latencies.push(last - start);
        else fail(bad);
      } catch (err) {
        last = performance.now();
        fail(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, lane));
  const cpuAfter = cpuOf(pids);
  const driver = process.cpuUsage(driverBefore);
  const durationUs = (last - t0) * 1000;
  const sorted = Float64Array.from(latencies).sort();
  const serverCpuUs: Record<string, number | undefined> = {};
  for (const name of Object.keys(pids)) {
    const a = cpuBefore[name];
    const b = cpuAfter[name];
    serverCpuUs[name] = a === undefined || b === undefined ? undefined : b - a;
  }
  return {
    ok: latencies.length,
    errors,
    sampleBad,
    durationUs,
    tasksPerSec: durationUs > 0 ? latencies.length / (durationUs / 1e6) : 0,
    p50ms: pct(sorted, 0.5),
    p99ms: pct(sorted, 0.99),
    serverCpuUs,
    driverCpuUs: driver.user + driver.system,
  };
}
