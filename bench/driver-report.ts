// Cells shared by the report sections whose rows come from the SDK driver (outbound, relay): numbers, CPU per task,
// and each row's note (not measured, driver-bound, invalid).
import type { DriveResult } from './sdk-driver.js';

export interface DrivenRow {
  result?: DriveResult;
  failure?: string;
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const cell = (s: string): string => s.replace(/\s+/g, ' ').replace(/[`|]/g, ' ').slice(0, 240);

/** a process's CPU µs per checked reply */
export function perTask(row: DrivenRow, process: string): string {
  const r = row.result;
  const us = r?.serverCpuUs[process];
  return r === undefined || us === undefined || r.ok === 0 ? '—' : fmt(us / r.ok, 1);
}

export function note(row: DrivenRow): string {
  if (row.failure !== undefined) return `NOT MEASURED: ${cell(row.failure)}`;
  const r = row.result;
  if (r === undefined) return '';
  // the driver shares the cores with the servers: once it uses a whole core it, not the path, sets the rate
  const bound = r.durationUs > 0 && r.driverCpuUs / r.durationUs >= 0.9 ? '; **driver-bound**: the path itself may go faster' : '';
  if (r.errors === 0) return `ok (${fmt(r.ok)} replies checked)${bound}`;
  return `**INVALID**: ${fmt(r.errors)} failed requests; first: ${cell(r.sampleBad).slice(0, 160)}`;
}
