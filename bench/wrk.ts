// Bench load generator: runs wrk (pinned to its own core) with jsonrpc.lua and parses the
// BENCH_RESULT line that the script's done() prints; reads the server's CPU time around the run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnPinned, treeCpuUs } from './proc.js';

const SCRIPT = fileURLToPath(new URL('./jsonrpc.lua', import.meta.url));

export interface WrkResult {
  requests: number;
  durationUs: number;
  rps: number;
  p50us: number;
  p99us: number;
  checked: number;
  badReplies: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  non2xx: number;
  sampleBad: string;
  /**
   * CPU time (user + system, µs) the server process (threads and any child processes included)
   * used while wrk ran; set by runWrk when the load names `serverPid`, not by the Lua script.
   */
  serverCpuUs?: number;
}

export interface WrkLoad {
  url: string;
  bodyFile: string;
  authorization?: string;
  /** extra substring every good reply must contain */
  expect?: string;
  /** one extra request header, `Name: value` (e.g. `A2A-Version: 1.0`) */
  header?: string;
  /** the server's pid (the node process itself): its CPU time over this run is read from /proc */
  serverPid?: number;
  seconds: number;
  connections: number;
  core: number;
}

export function wrkInstalled(): boolean {
  const probe = spawnSync('wrk', ['-v'], { stdio: 'ignore' });
  return probe.error === undefined;
}

function parse(stdout: string): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  if (line === undefined) throw new Error(`wrk printed no BENCH_RESULT line:\n${stdout}`);
  return JSON.parse(line.slice('BENCH_RESULT '.length)) as WrkResult;
}

/** Total count of replies that do not count as a success (bad bodies plus socket errors). */
export function errorCount(r: WrkResult): number {
  return r.badReplies + r.connectErrors + r.readErrors + r.writeErrors + r.timeouts;
}

export async function runWrk(load: WrkLoad): Promise<WrkResult> {
  const threads = 1;
  const args = [
    `-t${threads}`,
    `-c${load.connections}`,
    `-d${load.seconds}s`,
    '--latency',
    '--timeout',
    '5s',
    '-s',
    SCRIPT,
    load.url,
    '--',
    load.bodyFile,
    load.authorization ?? '-',
    load.expect ?? '-',
    load.header ?? '-',
  ];
  // read as close to wrk's lifetime as possible: just before spawning it and as soon as it is gone
  const cpuBefore = load.serverPid === undefined ? undefined : treeCpuUs(load.serverPid);
  // spawned like the servers (own process group, tracked) so that an interrupted run leaves no wrk behind
  const child = spawnPinned(load.core, 'wrk', args, process.cwd());
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const cpuAfter = load.serverPid === undefined ? undefined : treeCpuUs(load.serverPid);
  if (code !== 0) throw new Error(`wrk exited with code ${code}: ${stderr.trim()}`);
  const result = parse(stdout);
  if (cpuBefore !== undefined && cpuAfter !== undefined) result.serverCpuUs = cpuAfter - cpuBefore;
  return result;
}
