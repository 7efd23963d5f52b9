// Bench targets: how to start each server under test (gateway, SDK references 0.3 and 1.x, bare uWS, the design floor)
// pinned to the server core, where to POST, and which wire protocol it speaks.
// Selection via BENCH_TARGETS=gateway,gateway1,gateway-nometrics,sdk,sdk1,bare,floor (gateway1: ours spoken to in A2A 1.0).
import { fileURLToPath } from 'node:url';
import type { Protocol } from './bodies.js';
import { startGateway } from './gateway-target.js';
import { serverPid, spawnPinned, stop, waitListening } from './proc.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export type TargetName = 'gateway' | 'gateway1' | 'gateway-nometrics' | 'sdk' | 'sdk1' | 'bare' | 'floor';
export const TARGET_NAMES: readonly TargetName[] = ['gateway', 'gateway1', 'gateway-nometrics', 'sdk', 'sdk1', 'bare', 'floor'];

export interface Running {
  /** full URL of the JSON-RPC endpoint */
  endpoint: string;
  authorization?: string;
  /** the server's own node process (checked via /proc/<pid>/exe), whose CPU time is measured; undefined: not known */
  pid?: number;
  shutdown(): Promise<void>;
}

export interface Target {
  name: TargetName;
  label: string;
  /** the request bodies and reply shapes it speaks */
  protocol: Protocol;
  start(): Promise<Running>;
}

/** Starts one of the TypeScript reference servers in bench/ (through tsx) pinned to `core`, the server core by default. */
export async function startTsServer(name: string, file: string, core = SERVER_CORE): Promise<Running> {
  const child = spawnPinned(core, process.execPath, ['--import', 'tsx', `bench/${file}`], ROOT);
  const base = await waitListening(child, name).catch(async (err: unknown) => {
    await stop(child);
    throw err;
  });
  return { endpoint: `${base}/api/a2a`, pid: serverPid(child, name), shutdown: () => stop(child) };
}

export const TARGETS: Record<TargetName, Target> = {
  gateway: { name: 'gateway', label: 'ours (gateway)', protocol: 'a2a-0.3', start: () => startGateway(SERVER_CORE, ROOT) },
  // the same gateway, spoken to in A2A 1.0: its rows are SendMessage and GetTask
  gateway1: { name: 'gateway1', label: 'ours (gateway), A2A 1.0: SendMessage / GetTask', protocol: 'a2a-1.0', start: () => startGateway(SERVER_CORE, ROOT) },
  // the same gateway with `metrics.enabled: false`: the pair of rows is what the counters cost
  'gateway-nometrics': {
    name: 'gateway-nometrics',
    label: 'ours, metrics off',
    protocol: 'a2a-0.3',
    start: () => startGateway(SERVER_CORE, ROOT, { config: { metrics: { enabled: false } } }),
  },
  sdk: { name: 'sdk', label: '@a2a-js/sdk 0.3 (express)', protocol: 'a2a-0.3', start: () => startTsServer('sdk-server', 'sdk-server.ts') },
  sdk1: { name: 'sdk1', label: '@a2a-js/sdk 1.x (express)', protocol: 'a2a-1.0', start: () => startTsServer('sdk1-server', 'sdk1-server.ts') },
  bare: { name: 'bare', label: 'bare uWS (ceiling)', protocol: 'a2a-0.3', start: () => startTsServer('bare-uws', 'bare-uws.ts') },
  // uWS + one pool turn + one durable LMDB put per send, nothing of the gateway's own (design-floor.ts)
  floor: {
    name: 'floor',
    label: 'design floor (pool turn + durable put)',
    protocol: 'a2a-0.3',
    start: () => startTsServer('design-floor', 'design-floor.ts'),
  },
};

/** Parses BENCH_TARGETS (default: all of them, in table order). */
export function selectedTargets(spec = process.env.BENCH_TARGETS): Target[] {
  if (spec === undefined || spec.trim() === '') return TARGET_NAMES.map((n) => TARGETS[n]);
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return names.map((n) => {
    if (!(TARGET_NAMES as readonly string[]).includes(n)) {
      throw new Error(`unknown target "${n}" in BENCH_TARGETS (known: ${TARGET_NAMES.join(', ')})`);
    }
    return TARGETS[n as TargetName];
  });
}
