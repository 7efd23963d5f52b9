// What agent code in a worker may not do to the process it shares with the gateway: signal it or its parent (process.kill, _kill).
/**
 * Tested in Node 20's worker threads, what reaches the whole process from one: `process.kill` (and the raw
 * `process._kill` it calls) of the process's own pid, of 0 or a negative pid (its process group, every process), and
 * of its parent's pid (a supervisor, `npm start`, a shell: ending it ends or orphans the gateway).
 * Node itself refuses `abort`, `chdir`, `setuid`/`setgid`/`seteuid`/`setgroups`/`initgroups` and a `umask` change in
 * a worker; `exit` and `reallyExit` end only the worker; `title` is the worker's own. Those are left to Node.
 */

/** The first refused call of the current module turn, in words (null: none). */
let refused: string | null = null;

const sigText = (signal: unknown): string => (typeof signal === 'string' ? JSON.stringify(signal) : String(signal));

/** Signal 0 only checks that a process exists; a pid of 0 or below is a process group or every process. */
function reachesGateway(pid: unknown, signal: unknown): boolean {
  if (signal === 0 || signal === '0') return false;
  const n = Number(pid);
  return n === process.pid || n === process.ppid || n <= 0;
}

/**
 * Throws the refusal, and keeps it as the turn's: the turn fails with it even if the agent catches the throw. `why`
 * ends the sentence "<call> was refused: ...".
 */
export function refuseCall(call: string, why: string): never {
  const message = `${call} was refused: ${why}`;
  refused ??= message;
  throw Object.assign(new Error(message), { code: 'ERR_AGENT_PROCESS_CALL' });
}

const refuse = (call: string): never => refuseCall(call, "it would signal the gateway's own process (or its parent), which every agent and caller shares");

type Kill = (pid: number, signal?: string | number) => unknown;

/** Fixes a guarded function in place: an agent cannot hand the next agent on its worker a different one. */
function pin(name: string, value: Kill): void {
  Object.defineProperty(process, name, { value, writable: false, configurable: false, enumerable: false });
}

let installed = false;

/** Installs the guard once per worker, before any agent module loads. */
export function guardProcess(): void {
  if (installed) return;
  installed = true;
  const proc = process as unknown as { kill: Kill; _kill?: Kill };
  const kill = proc.kill;
  const rawKill = proc._kill;
  pin('kill', (pid, signal) => {
    if (reachesGateway(pid, signal ?? 'SIGTERM')) refuse(`process.kill(${String(pid)}${signal === undefined ? '' : `, ${sigText(signal)}`})`);
    return kill.call(process, pid, signal);
  });
  if (typeof rawKill === 'function') {
    pin('_kill', (pid, signal) => {
      if (reachesGateway(pid, signal)) refuse(`process._kill(${String(pid)}, ${sigText(signal)})`);
      return rawKill.call(process, pid, signal);
    });
  }
}

/** A module turn starts: refusals before it (at the module's import, say) failed no turn of theirs. */
export function forgetRefusals(): void {
  refused = null;
}

/** What this turn tried and was refused: the turn fails with it even if the agent caught the throw. */
export const refusedCall = (): string | null => refused;
