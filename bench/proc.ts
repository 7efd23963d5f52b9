// Bench child processes: spawns CPU-pinned children in their own process group, waits for their
// "listening on http://..." line, and kills every child it started (by group id) on exit or error.
import { spawn, type ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function killAll(): void {
  for (const child of live) killGroup(child);
  live.clear();
}

function hookCleanup(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

/** Spawns `cmd args` pinned to `core` with taskset, in `cwd`, in a new process group (stdin piped on request). */
export function spawnPinned(core: number, cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv, stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  hookCleanup();
  const child = spawn('taskset', ['-c', String(core), cmd, ...args], {
    cwd,
    detached: true,
    stdio: [stdin, 'pipe', 'pipe'],
    env: env ?? process.env,
  });
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}

/** Stops one child (and its group) and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
  }
  const timer = setTimeout(() => killGroup(child), 3000);
  await exited;
  clearTimeout(timer);
}

/** Resolves with the base URL once the child prints `listening on http://host:port`. */
export function waitListening(child: ChildProcess, name: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const onData = (buf: Buffer): void => {
      out += buf.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m !== null) {
        done();
        resolve(m[1]!);
      }
    };
    const onErr = (buf: Buffer): void => {
      err = (err + buf.toString()).slice(-4000);
    };
    const onExit = (code: number | null): void => {
      done();
      reject(new Error(`${name} exited (code ${code}) before listening:\n${out}${err}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${name} did not print "listening on" within ${timeoutMs} ms:\n${out}${err}`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      // keep draining output so a chatty child never blocks on a full pipe
      child.stdout?.resume();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onErr);
    child.once('exit', onExit);
  });
}
