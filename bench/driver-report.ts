// Cells shared by the report sections whose rows come from the SDK driver (outbound, relay): numbers, CPU per task,
// and each row's note (not measured, driver-bound, invalid).
import type { DriveResult } from './sdk-driver.js';

export interface DrivenRow {
  result?: DriveResult;
  failure?: string;
}

/** a row that measured a working path: a result, every reply checked, none failed */
export const drivenOk = (row: DrivenRow): boolean => row.failure === undefined && row.result !== undefined && row.result.errors === 0 && row.result.ok > 0;

/** the footnote under a driven table: what its CPU and driver columns are */
export const CPU_NOTE =
  '*CPU µs/task*: user + system CPU time of that process (`/proc/<pid>/stat`, all threads) over the measured window, divided by the checked replies. ' +
  "*driver CPU %*: the bench process's CPU time over the window (near 100 would mean the driver, not the servers, set the rate).";

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
