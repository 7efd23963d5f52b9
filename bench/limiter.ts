// Limiter latency bench: per-check p50/p99 of each engine, next to a bare Redis PING as the floor.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createClient } from 'redis';
import { systemClock } from '../src/runtime/clock.js';
import { DEFAULT_RATE_LIMITS } from '../src/protocol/records.js';
import { createMemoryLimiter } from '../src/runtime/limiter/memory.js';
import { createRedisLimiter } from '../src/runtime/limiter/redis.js';
import { limiterKeyPattern } from '../src/runtime/redis/keys.js';

export interface LimiterBenchRow {
  name: string;
  p50us: number;
  p99us: number;
  opsPerSec: number;
}

/** Enough keys that lookups are not all in one cache line, few enough that most checks are allowed. */
const KEYS = Array.from({ length: 5_000 }, (_, i) => `bench-key-${i}`);
const keyAt = (i: number): string => KEYS[i % KEYS.length]!;

/** Times `iterations` sequential calls, after an unmeasured warm-up so the JIT has settled. */
async function measure(opts: { name: string; iterations: number; op: (i: number) => unknown }): Promise<LimiterBenchRow> {
  const { name, iterations, op } = opts;
  for (let i = 0; i < Math.min(iterations, 10_000); i++) await op(i);
  const ns = new Float64Array(iterations);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const s = process.hrtime.bigint();
    await op(i);
    ns[i] = Number(process.hrtime.bigint() - s);
  }
  const totalNs = Number(process.hrtime.bigint() - start);
  ns.sort();
  const pct = (p: number): number => ns[Math.min(iterations - 1, Math.floor((p / 100) * iterations))]! / 1000;
  return { name, p50us: round(pct(50)), p99us: round(pct(99)), opsPerSec: Math.round(iterations / (totalNs / 1e9)) };
}

const round = (us: number): number => Math.round(us * 100) / 100;

async function deleteUnder(url: string, prefix: string): Promise<void> {
  const c = createClient({ url });
  c.on('error', () => {});
  await c.connect();
  try {
    for await (const batch of c.scanIterator({ MATCH: limiterKeyPattern(prefix), COUNT: 500 })) if (batch.length) await c.del(batch);
  } finally {
    await c.close();
  }
}

export async function runLimiterBench(opts: { redisUrl: string; iterations?: number }): Promise<LimiterBenchRow[]> {
  const iterations = opts.iterations ?? 50_000;
  const L = DEFAULT_RATE_LIMITS;
  const rows: LimiterBenchRow[] = [];

  const memory = createMemoryLimiter({ clock: systemClock });
  // the memory engine is cheap enough to afford ten times the samples for a steadier p99
  rows.push(await measure({ name: `memory check() (${KEYS.length} keys)`, iterations: iterations * 10, op: (i) => memory.check(keyAt(i), L) }));
  await memory.close();
  const memSync = createMemoryLimiter({ clock: systemClock });
  rows.push(await measure({ name: `memory checkSync() (${KEYS.length} keys)`, iterations: iterations * 10, op: (i) => memSync.checkSync(keyAt(i), L) }));
  await memSync.close();

  const prefix = `a2a-bench:limiter:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const redis = await createRedisLimiter({ url: opts.redisUrl, prefix, clock: systemClock });
  try {
    rows.push(await measure({ name: 'redis check() (checkLimit-2, 1 round trip)', iterations, op: (i) => redis.check(keyAt(i), L) }));
  } finally {
    await redis.close();
    await deleteUnder(opts.redisUrl, prefix);
  }

  const ping = createClient({ url: opts.redisUrl, disableOfflineQueue: true });
  ping.on('error', () => {});
  await ping.connect();
  try {
    rows.push(await measure({ name: 'redis PING (reference)', iterations, op: () => ping.ping() }));
  } finally {
    await ping.close();
  }
  return rows;
}

function markdown(rows: LimiterBenchRow[]): string {
  const lines = ['| check | p50 µs | p99 µs | ops/s |', '|---|--:|--:|--:|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.p50us} | ${r.p99us} | ${r.opsPerSec} |`);
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const iterations = process.env.BENCH_ITERATIONS ? Number(process.env.BENCH_ITERATIONS) : undefined;
  const rows = await runLimiterBench({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', iterations });
  console.log(markdown(rows));
}
