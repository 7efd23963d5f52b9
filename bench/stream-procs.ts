// Bench streams section, its processes: our gateway (fresh data dir, a key, the bench agents' config) or the SDK stream
// server, alone on the server core; client children on the load core; both under a raised open-files limit. Also the
// server's RSS (read once or sampled for its peak) and one row's lifecycle (everything it started is stopped, however
// it ends). Used by bench/streams.ts and bench/chunk-stream.ts.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errText } from './log.js';
import { createKey } from './gateway-target.js';
import { benchNodeArgs, spawnPinned, stop, waitListening } from './proc.js';
import { LOAD_CORE, ROOT, SERVER_CORE } from './targets.js';

export type StreamTarget = 'gateway' | 'sdk';
export const LABELS: Record<StreamTarget, string> = { gateway: 'ours (gateway)', sdk: '@a2a-js/sdk 0.3 (express)' };

export const WANT_NOFILE = 65536;
// raise the open-files limit for the exec'd process; fall back to the hard limit when not allowed
const NOFILE_WRAP = `ulimit -n ${WANT_NOFILE} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`;

export function rssKiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

export function nofileOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m === null ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every 200 ms and keeps the peak. */
export function rssSampler(pid: number | undefined): { peak: () => number | undefined; stop: () => void } {
  let peak: number | undefined;
  const take = (): void => {
    const v = rssKiB(pid);
    if (v !== undefined && (peak === undefined || v > peak)) peak = v;
  };
  take();
  const timer = setInterval(take, 200);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

export function spawnWithNofile(core: number, args: string[], stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawnPinned(core, 'bash', ['-c', NOFILE_WRAP, 'bash', process.execPath, ...benchNodeArgs(), ...args], ROOT, undefined, stdin);
}

/** Watches a child's exit and keeps the tail of its stderr, so a crash can be told precisely. */
export function watch(child: ChildProcess): { exited: () => string | undefined } {
  let exit: string | undefined;
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-1500)));
  child.once('exit', (code, signal) => {
    exit = `exited (code ${code}, signal ${signal})${err.trim() === '' ? '' : `; stderr tail: ${err.trim().slice(-600)}`}`;
  });
  return { exited: () => exit };
}

export interface Server {
  endpoint: string;
  port: number;
  authorization?: string;
  pid?: number;
  exited: () => string | undefined;
  shutdown: () => Promise<void>;
}

export async function startServer(target: StreamTarget, workDir: string): Promise<Server> {
  let args: string[];
  let authorization: string | undefined;
  const dataDir = mkdtempSync(join(workDir, `${target}-`));
  if (target === 'gateway') {
    const config = join(dataDir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        agents: [
          { id: 'slow', name: 'Slow', entry: 'slow', default: true, timeoutMs: 3_600_000 },
          { id: 'ticker', name: 'Ticker', kind: 'module', entry: join(ROOT, 'bench', 'agents', 'ticker.js'), timeoutMs: 600_000 },
          { id: 'chunks', name: 'Chunks', kind: 'module', entry: join(ROOT, 'bench', 'agents', 'chunks.js'), timeoutMs: 600_000 },
        ],
        // the chunk stream's task holds every chunk (about 80 bytes of output each): no output limit may fail it
        tasks: { maxTaskBytes: 1024 * 1024 * 1024 },
        // every stream of the section is one key's (the SDK has no keys): the per-key cap (100 by default) would
        // refuse all but the first hundred of the idle streams and the fan-out's subscribers
        streaming: { maxStreamsPerKey: 1_000_000 },
      }),
    );
    const storeDir = join(dataDir, 'data');
    authorization = `Bearer ${await createKey(ROOT, storeDir)}`;
    args = ['bin/a2a-gateway.js', 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', storeDir, '--config', config];
  } else {
    args = ['--import', 'tsx', 'bench/sdk-stream-server.ts'];
  }
  const child = spawnWithNofile(SERVER_CORE, args);
  const watcher = watch(child);
  const shutdown = async (): Promise<void> => {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const base = await waitListening(child, target === 'gateway' ? 'gateway' : 'sdk-stream-server');
    return { endpoint: `${base}/api/a2a`, port: Number(new URL(base).port), authorization, pid: child.pid, exited: watcher.exited, shutdown };
  } catch (err) {
    await shutdown();
    throw err;
  }
}

/** Starts a task without waiting for it (configuration.blocking = false); returns its id. */
export async function startTask(server: Server, agentId: string, data: Record<string, unknown>): Promise<string> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'start',
    method: 'message/send',
    params: {
      configuration: { blocking: false },
      message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'data', data }], metadata: { agentId } },
    },
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (server.authorization !== undefined) headers.authorization = server.authorization;
  const res = await fetch(server.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let id: unknown;
  try {
    id = (JSON.parse(text) as { result?: { id?: unknown } }).result?.id;
  } catch {
    // reported below
  }
  if (res.status !== 200 || typeof id !== 'string') throw new Error(`starting a ${agentId} task failed: HTTP ${res.status} ${text.slice(0, 300)}`);
  return id;
}

export interface Client {
  pid?: number;
  next<T>(tag: string, timeoutMs: number): Promise<T>;
  send(line: string): void;
  done(): Promise<void>;
}

/** Runs a client script (bench/stream-client.ts, bench/chunk-client.ts) with its JSON spec in argv[2], pinned to the load core. */
export function startClient(script: string, spec: object): Client {
  const child = spawnWithNofile(LOAD_CORE, ['--import', 'tsx', script, JSON.stringify(spec)], 'pipe');
  const watcher = watch(child);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  child.stdout?.on('data', (b: Buffer) => {
    buf += b.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  child.once('exit', () =>
    setImmediate(() => {
      for (const w of waiters.splice(0)) w();
    }),
  );
  return {
    pid: child.pid,
    async next<T>(tag: string, timeoutMs: number): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = lines.findIndex((l) => l.startsWith(`${tag} `) || l.startsWith('FAILED '));
        if (i >= 0) {
          const line = lines.splice(i, 1)[0]!;
          if (line.startsWith('FAILED ')) throw new Error(`stream client failed: ${line.slice(7, 600)}`);
          return JSON.parse(line.slice(tag.length + 1)) as T;
        }
        const exit = watcher.exited();
        if (exit !== undefined) throw new Error(`stream client ${exit} before ${tag}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`stream client printed no ${tag} within ${Math.round(timeoutMs / 1000)} s`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 1000));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    send(line: string) {
      if (child.stdin?.writable === true) child.stdin.write(`${line}\n`);
    },
    done: () => stop(child),
  };
}

// ---------------------------------------------------------------- rows

/** What one row starts: each is stopped, and the server's peak memory and exit read, however the row ends. */
export interface RowParts {
  server?: Server;
  client?: Client;
  sampler?: ReturnType<typeof rssSampler>;
}

export async function measureRow<R extends { failure?: string; peakRssKiB?: number }>(row: R, body: (h: RowParts) => Promise<void>): Promise<R> {
  const h: RowParts = {};
  try {
    await body(h);
    const exit = h.server?.exited();
    if (exit !== undefined) row.failure = `server ${exit}`;
  } catch (err) {
    row.failure = h.server?.exited() !== undefined ? `server ${h.server.exited()} (${errText(err)})` : errText(err);
  } finally {
    h.sampler?.stop();
    row.peakRssKiB = h.sampler?.peak();
    await h.client?.done();
    await h.server?.shutdown();
  }
  return row;
}
