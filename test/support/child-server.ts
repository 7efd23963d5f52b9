// Test support: runs the real CLI (`bin/a2a-gateway.js`) as a child process: `serve` on port 0, `keys ...`, and JSON-RPC over HTTP to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/a2a-gateway.js', import.meta.url));
/** the relay's command, `a2a-relay` */
export const RELAY_BIN = fileURLToPath(new URL('../../bin/a2a-relay.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The parent's env without the gateway's own settings, so a developer's shell cannot steer a test. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('A2A_') || k === 'REDIS_URL' || k === 'LOG_LEVEL') continue;
    // tap's process tracker (NODE_OPTIONS --import) only slows a server child down
    if (k.startsWith('_TAPJS_PROCESSINFO') || (k === 'NODE_OPTIONS' && v?.includes('@tapjs/processinfo'))) continue;
    env[k] = v;
  }
  // the CLI under test is the sources (through tsx), even where `npm install` left a build in dist/
  env.A2A_FROM_SOURCE = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * How many CLI runs of this test process are alive at once; more wait their turn. Each run is a Node process
 * compiling the sources through tsx: a test starting twenty at once on a 2-core machine under load had some of them
 * reach the hang guard below (killed: no exit code, empty stderr) while they were only waiting for a core.
 */
const CLI_AT_ONCE = Math.max(2, availableParallelism());
let cliRunning = 0;
const cliWaiting: Array<() => void> = [];

async function cliTurn(): Promise<() => void> {
  if (cliRunning >= CLI_AT_ONCE) await new Promise<void>((r) => cliWaiting.push(r));
  cliRunning++;
  return () => {
    cliRunning--;
    cliWaiting.shift()?.();
  };
}

/**
 * Runs `a2a-gateway <args>` (or `bin`: RELAY_BIN, `a2a-relay <args>`) to its end, at most CLI_AT_ONCE at a time;
 * `timeoutMs` (from its start) is a hang guard: a run still alive then is killed (signal SIGKILL, code null).
 */
export async function runCli(args: string[], o: { env?: Record<string, string | undefined>; timeoutMs?: number; bin?: string } = {}): Promise<CliResult> {
  const done = await cliTurn();
  try {
    return await runCliNow(args, o);
  } finally {
    done();
  }
}

function runCliNow(args: string[], o: { env?: Record<string, string | undefined>; timeoutMs?: number; bin?: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [o.bin ?? BIN, ...args], { cwd: REPO_ROOT, env: cleanEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Whether a failed command printed no result on stdout: nothing, or (with --json) its failure as one JSON line,
 * `{"error": {...}}` alone, which is no key, connection or listing.
 */
export function printedNoResult(r: CliResult): boolean {
  if (r.stdout === '') return true;
  if (!r.stdout.endsWith('\n') || r.stdout.indexOf('\n') !== r.stdout.length - 1) return false;
  try {
    const v: unknown = JSON.parse(r.stdout);
    return typeof v === 'object' && v !== null && Object.keys(v).join() === 'error';
  } catch {
    return false;
  }
}

/** `keys create ... --json` parsed; throws with the CLI's stderr when it fails. */
export async function createKeyCli(
  dataDir: string,
  o: { workspace?: string; trust?: string; extra?: string[]; env?: Record<string, string | undefined> } = {},
) {
  const r = await runCli(
    ['keys', 'create', '--data-dir', dataDir, '--workspace', o.workspace ?? 'ws1', '--trust', o.trust ?? 'admin', '--json', ...(o.extra ?? [])],
    { env: o.env },
  );
  if (r.code !== 0) throw new Error(`keys create failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as { id: string; key: string; workspace: string; trust: string; scopes: string[]; expires_at: string | null };
}

export interface ChildServer {
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  /** everything the child wrote so far */
  output(): { stdout: string; stderr: string };
  /** resolves with how the child ended */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** sends `signal` and waits for the exit; a no-op once it exited */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /a2a-gateway listening on (http:\/\/\S+)/;

/** Starts `a2a-gateway serve --port 0` (plus `args`) and resolves once it prints its URL. `port: null` leaves the flag out (give A2A_PORT=0 then). */
export function startChildServer(
  o: { dataDir?: string; port?: string | null; args?: string[]; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<ChildServer> {
  const args = [
    'serve',
    ...(o.port === null ? [] : ['--port', o.port ?? '0']),
    ...(o.dataDir !== undefined ? ['--data-dir', o.dataDir] : []),
    ...(o.args ?? []),
  ];
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: cleanEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.setEncoding('utf8');
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (s: string) => (stderr += s));
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      ended = { code, signal };
      resolve(ended);
    });
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (!ended) proc.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start within ${o.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, o.timeoutMs ?? 60_000);
    proc.stdout!.on('data', (s: string) => {
      stdout += s;
      const m = LISTENING.exec(stdout);
      if (m) {
        clearTimeout(timer);
        const url = m[1]!;
        resolve({ url, port: Number(new URL(url).port), proc, output: () => ({ stdout, stderr }), exited, kill });
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (code ${e.code}, signal ${e.signal})\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

export interface Rpc {
  status: number;
  headers: Headers;
  /** the parsed JSON body (undefined for an empty body) */
  json: any;
}

let counter = 0;

/** One JSON-RPC call over HTTP to `baseUrl` (path /api/a2a unless given). */
export async function rpcAt(
  baseUrl: string,
  o: { key?: string; method: string; params?: unknown; path?: string; headers?: Record<string, string> },
): Promise<Rpc> {
  const res = await fetch(baseUrl + (o.path ?? '/api/a2a'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(o.key && { Authorization: `Bearer ${o.key}` }), ...o.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: `c-${++counter}`, method: o.method, params: o.params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** Polls `probe` every `everyMs` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, o: { timeoutMs?: number; everyMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, o.everyMs ?? 25));
  }
}
