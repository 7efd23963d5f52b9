// Bench child processes: spawns CPU-pinned children in their own process group, waits for their
// "listening on http://..." line, and kills every child it started (by group id) on exit or error;
// reads a server's CPU time from /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';

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
export function spawnPinned(
  core: number,
  cmd: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
  stdin: 'ignore' | 'pipe' = 'ignore',
): ChildProcess {
  hookCleanup();
  const extra = cmd === process.execPath ? benchNodeArgs() : [];
  const child = spawn('taskset', ['-c', String(core), cmd, ...extra, ...args], {
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
/** BENCH_NODE_ARGS (profiling: e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"): goes to every node child, wrapped or not */
export const benchNodeArgs = (): string[] => (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

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
  // a profiling child writes its profile on exit, which can take several seconds after a loaded run
  const timer = setTimeout(() => killGroup(child), process.env.BENCH_NODE_ARGS ? 30_000 : 3000);
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

// ---- server CPU time, read from /proc (Linux) ----

let clockTicks: number | undefined;
/** USER_HZ: the unit of the times in /proc/<pid>/stat (`getconf CLK_TCK`, 100 on every usual Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
    const n = Number(out);
    clockTicks = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return clockTicks;
}

interface StatLine {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks */
  ticks: number;
}

/** Parses /proc/<pid>/stat; undefined when the process is gone. comm may hold spaces and ')', so split after the last ')'. */
function readStat(pid: number): StatLine | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // fields after "pid (comm) ": state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17)
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (field: number): number => Number(f[field - 3]);
  return { ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17) };
}

/**
 * CPU time (user + system) of process `pid` and of every live descendant process, in µs.
 * The process's own line covers all its threads (worker threads included, exited ones too);
 * cutime/cstime add children it has already reaped, so a child that exits between two readings
 * is still counted. undefined when `pid` is gone.
 */
export function treeCpuUs(pid: number): number | undefined {
  const root = readStat(pid);
  if (root === undefined) return undefined;
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = Number(name);
    if (child === pid) continue;
    const st = readStat(child);
    if (st === undefined) continue;
    const list = children.get(st.ppid);
    if (list === undefined) children.set(st.ppid, [child]);
    else list.push(child);
  }
  let ticks = root.ticks;
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const p = queue.pop() as number;
    ticks += readStat(p)?.ticks ?? 0;
    queue.push(...(children.get(p) ?? []));
  }
  return (ticks * 1e6) / ticksPerSecond();
}

/**
 * The pid to read a server's CPU time from: `child` was started through `taskset`, which execs
 * the command in place, so once the server listens its pid must be running `expectedExe` (node).
 * Returns undefined (and says why on stderr) when it is not, rather than measuring the wrong process.
 */
export function serverPid(child: ChildProcess, name: string, expectedExe = process.execPath): number | undefined {
  const pid = child.pid;
  if (pid === undefined) return undefined;
  try {
    const exe = readlinkSync(`/proc/${pid}/exe`);
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (exe === realpathSync(expectedExe)) return pid;
    process.stderr.write(`[bench] ${name}: pid ${pid} runs ${exe} (comm "${comm}"), not ${expectedExe}: no CPU column for it\n`);
  } catch (err) {
    process.stderr.write(`[bench] ${name}: cannot read /proc/${pid}: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  return undefined;
}
