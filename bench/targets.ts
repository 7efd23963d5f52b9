// Bench targets: how to start each server under test (gateway, SDK reference, bare uWS) pinned
// to the server core, and where to POST. Selection via BENCH_TARGETS=gateway,sdk,bare.
import { fileURLToPath } from 'node:url';
import { startGateway } from './gateway-target.js';
import { serverPid, spawnPinned, stop, waitListening } from './proc.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export type TargetName = 'gateway' | 'sdk' | 'bare';
export const TARGET_NAMES: readonly TargetName[] = ['gateway', 'sdk', 'bare'];

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
  start(): Promise<Running>;
}

async function startTsServer(name: string, file: string): Promise<Running> {
  const child = spawnPinned(SERVER_CORE, process.execPath, ['--import', 'tsx', `bench/${file}`], ROOT);
  const base = await waitListening(child, name).catch(async (err: unknown) => {
    await stop(child);
    throw err;
  });
  return { endpoint: `${base}/api/a2a`, pid: serverPid(child, name), shutdown: () => stop(child) };
}

export const TARGETS: Record<TargetName, Target> = {
  gateway: { name: 'gateway', label: 'ours (gateway)', start: () => startGateway(SERVER_CORE, ROOT) },
  sdk: { name: 'sdk', label: '@a2a-js/sdk 0.3 (express)', start: () => startTsServer('sdk-server', 'sdk-server.ts') },
  bare: { name: 'bare', label: 'bare uWS (ceiling)', start: () => startTsServer('bare-uws', 'bare-uws.ts') },
};

/** Parses BENCH_TARGETS (default: all three, in table order). */
export function selectedTargets(spec = process.env.BENCH_TARGETS): Target[] {
  if (spec === undefined || spec.trim() === '') return TARGET_NAMES.map((n) => TARGETS[n]);
  const names = spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return names.map((n) => {
    if (!(TARGET_NAMES as readonly string[]).includes(n)) {
      throw new Error(`unknown target "${n}" in BENCH_TARGETS (known: ${TARGET_NAMES.join(', ')})`);
    }
    return TARGETS[n as TargetName];
  });
}
