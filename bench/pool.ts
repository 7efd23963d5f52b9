// Benchmark: echo runs through the real agent pool, with a subscriber, at fixed concurrency.
// Usage: node --import tsx bench/pool.ts [--runs 200000] [--concurrency 64] [--threads 2] [--warmup 20000] [--batch 16]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { AgentSpec, type AgentRunInput } from '../src/protocol/agent-events.js';
import { createAgentPool } from '../src/runtime/pool/index.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200000' },
    concurrency: { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '20000' },
    batch: { type: 'string' },
  },
});
const runs = Number(values.runs);
const concurrency = Number(values.concurrency);
const threads = Number(values.threads);

const agent = AgentSpec.parse({ id: 'echo', name: 'Echo', description: 'Echoes the message back' });
// A fresh task and message per run, as the gateway builds them per request: structured clone
// would share one repeated object within a batch and flatter the numbers.
const inputFor = (i: number): AgentRunInput => ({
  agent,
  task: { id: `task-${i}`, contextId: `ctx-${i}`, history: [], artifacts: [], metadata: { workspace_id: 'ws-1' } },
  message: { role: 'user', parts: [{ kind: 'text', text: `hello, pool #${i}` }], messageId: `msg-${i}`, taskId: `task-${i}`, contextId: `ctx-${i}` },
});

const pool = createAgentPool({ minThreads: threads, maxThreads: threads, ...(values.batch ? { maxBatch: Number(values.batch) } : {}) });

async function drive(total: number, latencies: Float64Array | null): Promise<number> {
  let issued = 0;
  let events = 0;
  const onEvent = (): void => {
    events++;
  };
  async function lane(): Promise<void> {
    while (issued < total) {
      const i = issued++;
      const t = performance.now();
      const r = await pool.run(inputFor(i), { onEvent });
      if (latencies) latencies[i] = (performance.now() - t) * 1000;
      if (!r.ok) throw new Error(`run failed: ${r.error.reason}: ${r.error.message}`);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return events;
}

const pct = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

await drive(Number(values.warmup), null);
const latencies = new Float64Array(runs);
// On a shared machine wall-clock rates swing with the neighbours' load; CPU time per run is steadier.
const elu0 = performance.eventLoopUtilization();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const events = await drive(runs, latencies);
const seconds = (performance.now() - t0) / 1000;
const mainBusyMs = performance.eventLoopUtilization(elu0).active;
const cpu = process.cpuUsage(cpu0);
latencies.sort();
console.log(
  JSON.stringify({
    bench: 'pool-echo',
    threads,
    concurrency,
    runs,
    runsPerSec: Math.round(runs / seconds),
    p50us: Math.round(pct(latencies, 0.5)),
    p99us: Math.round(pct(latencies, 0.99)),
    eventsPerRun: events / runs,
    mainThreadUsPerRun: +((mainBusyMs * 1000) / runs).toFixed(2),
    processCpuUsPerRun: +((cpu.user + cpu.system) / runs).toFixed(2),
    node: process.version,
  }),
);
await pool.close();
