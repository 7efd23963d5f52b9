// Bench report: renders the throughput table (with the server's CPU time per request), the ratios
// and the limiter table as markdown, with the outbound, relay and streams sections' own markdown in between.
import type { LimiterOutcome } from './limiter-child.js';
import type { TargetName } from './targets.js';
import { errorCount, type WrkResult } from './wrk.js';

export type Method = 'message/send' | 'tasks/get';

export interface Row {
  target: TargetName;
  label: string;
  method: Method;
  result?: WrkResult;
  /** why the row could not be measured (server did not start, one-shot check failed, ...) */
  failure?: string;
}

export interface RunInfo {
  date: string;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  environment: string[];
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function isValid(row: Row): boolean {
  return row.result !== undefined && errorCount(row.result) === 0 && row.result.requests > 0;
}

function note(row: Row): string {
  if (row.failure !== undefined) return `NOT MEASURED: ${row.failure.replace(/\s+/g, ' ').slice(0, 240).replace(/[`|]/g, ' ')}`;
  const r = row.result;
  if (r === undefined) return '';
  if (errorCount(r) === 0) return `ok (${fmt(r.checked)} replies checked)`;
  const sample = r.sampleBad === '' ? '' : `; first bad: \`${r.sampleBad.slice(0, 120).replace(/[`|\n]/g, ' ')}\``;
  return `**INVALID**: ${r.badReplies} bad replies, ${r.timeouts} timeouts, ${r.connectErrors + r.readErrors + r.writeErrors} socket errors${sample}`;
}

/** The server's CPU time (user + system) over the measured window divided by the requests wrk completed in it, µs. */
export function cpuPerRequest(r: WrkResult): number | undefined {
  return r.serverCpuUs === undefined || r.requests <= 0 ? undefined : r.serverCpuUs / r.requests;
}

function throughputTable(rows: Row[]): string[] {
  const out = ['| target | method | req/s | p50 µs | p99 µs | server CPU µs/req | errors | notes |', '|---|---|--:|--:|--:|--:|--:|---|'];
  for (const row of rows) {
    const r = row.result;
    const cpu = r === undefined ? undefined : cpuPerRequest(r);
    const cells =
      r === undefined ? ['—', '—', '—', '—', '—'] : [fmt(r.rps), fmt(r.p50us), fmt(r.p99us), cpu === undefined ? '—' : fmt(cpu, 1), fmt(errorCount(r))];
    out.push(`| ${row.label} | ${row.method} | ${cells.join(' | ')} | ${note(row)} |`);
  }
  return out;
}

function ratio(rows: Row[], method: Method, num: TargetName, den: TargetName, title: string): string {
  const a = rows.find((r) => r.method === method && r.target === num);
  const b = rows.find((r) => r.method === method && r.target === den);
  if (a === undefined || b === undefined) return `- ${title}: n/a (target not selected)`;
  if (!isValid(a) || !isValid(b) || a.result === undefined || b.result === undefined) {
    return `- ${title}: n/a (a row is invalid or not measured)`;
  }
  const x = (p: number, q: number): string => `${fmt(p / q, 2)}×`;
  const ca = cpuPerRequest(a.result);
  const cb = cpuPerRequest(b.result);
  const cpu = ca === undefined || cb === undefined || cb <= 0 ? 'n/a' : x(ca, cb);
  return `- ${title}: req/s ${x(a.result.rps, b.result.rps)}, p50 ${x(a.result.p50us, b.result.p50us)}, p99 ${x(a.result.p99us, b.result.p99us)}, server CPU/req ${cpu}`;
}

/** issue 7's throughput goals, each read from the rows of this run */
const GOALS = { sendVsSdk: 3, sendP99Ms: 10, getVsBare: 0.6 } as const;

function rowOf(rows: Row[], method: Method, target: TargetName): WrkResult | undefined {
  const r = rows.find((x) => x.method === method && x.target === target);
  return r !== undefined && isValid(r) ? r.result : undefined;
}

/** The goals against this run's rows: met or not, with the figure reached and, for message/send, the design floor's. */
function goals(rows: Row[], connections: number): string[] {
  const x = (n: number): string => `${fmt(n, 2)}×`;
  const verdict = (ok: boolean): string => (ok ? '**met**' : '**not met**');
  const ours = rowOf(rows, 'message/send', 'gateway');
  const sdk = rowOf(rows, 'message/send', 'sdk');
  const floor = rowOf(rows, 'message/send', 'floor');
  const getOurs = rowOf(rows, 'tasks/get', 'gateway');
  const bare = rowOf(rows, 'tasks/get', 'bare');
  const floorVsSdk = floor && sdk ? `; the design floor reaches ${x(floor.rps / sdk.rps)}` : '';
  const floorP99 = floor ? `; the design floor's is ${fmt(floor.p99us / 1000, 1)} ms` : '';
  return [
    ours && sdk
      ? `- message/send at least ${GOALS.sendVsSdk}× the SDK 0.3 server's req/s: ${x(ours.rps / sdk.rps)}, ${verdict(ours.rps / sdk.rps >= GOALS.sendVsSdk)}${floorVsSdk}`
      : '- message/send against the SDK 0.3 server: n/a (a row is not selected, invalid or not measured)',
    ours
      ? `- message/send p99 at most ${GOALS.sendP99Ms} ms at ${connections} connections: ${fmt(ours.p99us / 1000, 1)} ms, ${verdict(ours.p99us <= GOALS.sendP99Ms * 1000)}${floorP99}`
      : '- message/send p99: n/a (the gateway row is not selected, invalid or not measured)',
    getOurs && bare
      ? `- tasks/get at least ${GOALS.getVsBare}× bare uWS's req/s: ${x(getOurs.rps / bare.rps)}, ${verdict(getOurs.rps / bare.rps >= GOALS.getVsBare)}`
      : '- tasks/get against bare uWS: n/a (a row is not selected, invalid or not measured)',
  ];
}

function limiterTable(outcome: LimiterOutcome): string[] {
  if (outcome.status === 'unavailable') return [`limiter bench not available (${outcome.reason}).`];
  if (outcome.status === 'failed') return [`**limiter bench FAILED**: ${outcome.reason}`];
  const out = ['| check | p50 µs | p99 µs | ops/s |', '|---|--:|--:|--:|'];
  for (const r of outcome.rows) out.push(`| ${r.name} | ${fmt(r.p50us, 1)} | ${fmt(r.p99us, 1)} | ${fmt(r.opsPerSec)} |`);
  return out;
}

export interface Extra {
  /** sections that ran (BENCH_SECTIONS); absent: all */
  sections?: ReadonlySet<string>;
  /** the streams section's markdown (bench/streams.ts) */
  streams?: string[];
  /** the outbound section's markdown (bench/outbound-report.ts) */
  outbound?: string[];
  /** the relay section's markdown (bench/relay-report.ts) */
  relay?: string[];
}

export function render(info: RunInfo, rows: Row[], limiter: LimiterOutcome, extra: Extra = {}): string {
  const invalid = rows.filter((r) => !isValid(r));
  const rpc = extra.sections === undefined || extra.sections.has('rpc');
  // the sections after the throughput one, the same whether it ran or not
  const rest = [...(extra.outbound ?? []), ...(extra.relay ?? []), ...(extra.streams ?? []), '## Limiter (per check)', '', ...limiterTable(limiter), ''];
  if (!rpc) {
    return [
      `# Bench results — ${info.date}`,
      '',
      ...info.environment.map((e) => `- ${e}`),
      '',
      'Throughput section not selected (BENCH_SECTIONS).',
      '',
      ...rest,
    ].join('\n');
  }
  return [
    `# Bench results — ${info.date}`,
    '',
    `wrk -t1 -c${info.connections} -d${info.seconds}s (after a ${info.warmupSeconds}s warm-up per row); servers pinned to core 0, wrk to core 1.`,
    ...info.environment.map((e) => `- ${e}`),
    '',
    '## Throughput (every reply body checked)',
    '',
    ...throughputTable(rows),
    '',
    "*server CPU µs/req*: the server process's user + system CPU time (`/proc/<pid>/stat`, all its threads) over the measured window, divided by the requests wrk completed in it.",
    '',
    invalid.length === 0
      ? 'All rows valid: every reply was HTTP 200 with a JSON-RPC `result` and no `error`.'
      : `**${invalid.length} row(s) INVALID or not measured** — their numbers do not measure a working server.`,
    '',
    '## Ratios',
    '',
    'Above 1× is better for req/s; below 1× is better for p50, p99 and server CPU per request.',
    '',
    ratio(rows, 'message/send', 'gateway', 'sdk', 'ours / SDK 0.3, message/send'),
    ratio(rows, 'message/send', 'gateway', 'sdk1', 'ours / SDK 1.x, message/send'),
    ratio(rows, 'message/send', 'gateway1', 'sdk1', 'ours in 1.0 / SDK 1.x, SendMessage'),
    ratio(rows, 'message/send', 'gateway1', 'gateway', 'ours in 1.0 / ours in 0.3, SendMessage vs message/send'),
    ratio(rows, 'tasks/get', 'gateway', 'bare', 'ours / bare uWS, tasks/get'),
    ratio(rows, 'message/send', 'floor', 'sdk', 'design floor / SDK 0.3, message/send (the most the fixed parts allow)'),
    ratio(rows, 'message/send', 'gateway', 'floor', 'ours / design floor, message/send'),
    ratio(rows, 'message/send', 'gateway', 'gateway-nometrics', 'ours with metrics / without, message/send'),
    ratio(rows, 'tasks/get', 'gateway', 'gateway-nometrics', 'ours with metrics / without, tasks/get'),
    '',
    "## Goals (issue 7), from this run's rows",
    '',
    ...goals(rows, info.connections),
    '',
    ...rest,
  ].join('\n');
}
