// Bench limiter section: runs limiter-child.ts pinned to the server core and returns its outcome
// (rows from runLimiterBench, "unavailable" while bench/limiter.ts is missing, or a failure reason).
import type { LimiterOutcome } from './limiter-child.js';
import { spawnPinned } from './proc.js';

export async function runLimiterSection(core: number, root: string, timeoutMs = 600_000): Promise<LimiterOutcome> {
  const child = spawnPinned(core, process.execPath, ['--import', 'tsx', 'bench/limiter-child.ts'], root);
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const line = out.split('\n').find((l) => l.startsWith('LIMITER_RESULT '));
  if (line === undefined) {
    return { status: 'failed', reason: `limiter child exited (code ${code}) without a result: ${err.trim()}` };
  }
  return JSON.parse(line.slice('LIMITER_RESULT '.length)) as LimiterOutcome;
}
