// Bench settings read from the environment, and the machine's load as the reports print it.
import { loadavg } from 'node:os';

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** load average, 1/5/15 min */
export const loadNow = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
