// Bench settings read from the environment, and the machine's load as the reports print it.
import { loadavg } from 'node:os';

/** A whole-number setting: positive, or also 0 with allowZero (a knob whose 0 turns its part off). */
export function envInt(name: string, fallback: number, o: { allowZero?: boolean } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const min = o.allowZero === true ? 0 : 1;
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a ${min === 0 ? 'non-negative' : 'positive'} integer, got "${raw}"`);
  return n;
}

/** load average, 1/5/15 min */
export const loadNow = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
