// Bench child for the limiter section: imports bench/limiter.ts (owned by others), calls
// runLimiterBench({ redisUrl }) and prints one line: LIMITER_RESULT {json} (ok, unavailable, failed).
// Run by limiter-section.ts pinned to the server core; never imported by the rest of the bench.

export interface LimiterRow {
  name: string;
  p50us: number;
  p99us: number;
  opsPerSec: number;
}

export type LimiterOutcome = { status: 'ok'; rows: LimiterRow[] } | { status: 'unavailable'; reason: string } | { status: 'failed'; reason: string };

function isRow(v: unknown): v is LimiterRow {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.name === 'string' && typeof r.p50us === 'number' && typeof r.p99us === 'number' && typeof r.opsPerSec === 'number';
}

async function outcome(redisUrl: string): Promise<LimiterOutcome> {
  let mod: typeof import('./limiter.js');
  try {
    mod = await import('./limiter.js');
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    const msg = err instanceof Error ? err.message : String(err);
    if (code === 'ERR_MODULE_NOT_FOUND' && msg.includes('bench/limiter')) {
      return { status: 'unavailable', reason: 'bench/limiter.ts not found' };
    }
    return { status: 'failed', reason: `import failed: ${msg}` };
  }
  if (typeof mod.runLimiterBench !== 'function') {
    return { status: 'unavailable', reason: 'bench/limiter.ts exports no runLimiterBench' };
  }
  const rows: unknown = await mod.runLimiterBench({ redisUrl });
  if (!Array.isArray(rows) || !rows.every(isRow)) {
    return { status: 'failed', reason: `runLimiterBench returned an unexpected shape: ${JSON.stringify(rows).slice(0, 300)}` };
  }
  return { status: 'ok', rows };
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let result: LimiterOutcome;
try {
  result = await outcome(redisUrl);
} catch (err) {
  result = { status: 'failed', reason: err instanceof Error ? err.message : String(err) };
}
process.stdout.write(`LIMITER_RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
