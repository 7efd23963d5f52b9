// Whether agent code in a worker may start child processes: refused unless the agent's config allows it (`childProcesses`).
import { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { refuseCall } from './process-guard.js';

/**
 * A child process is outside everything the worker guards: it may signal the gateway's pid (`kill <pid>`, `kill
 * $PPID`), and it outlives the worker. So a module agent starts one only when the operator said so in its config; the
 * worker is told per turn (`allowChildProcesses`), before the agent's module is imported, and forbids it again after.
 */
let allowed = false;
/** the agent whose turn (or import) runs now, for the refusal's words */
let agentId = '';

const why = (): string =>
  `agent ${agentId} may not start processes (a child process can signal the gateway's own process); the operator allows it with "childProcesses": true in the agent's config`;

type Fn = (this: unknown, ...args: unknown[]) => unknown;

function guard(owner: Record<string, unknown>, name: string, call: string): void {
  const original = owner[name];
  if (typeof original !== 'function') return;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    if (!allowed) refuseCall(call, why());
    return (original as Fn).apply(this, args);
  };
  Object.defineProperty(owner, name, { value: wrapped, writable: false, configurable: false, enumerable: true });
}

/** The raw bindings `child_process` itself spawns through, which `process.binding` still hands out (deprecated). */
const SPAWN_BINDINGS = new Set(['process_wrap', 'spawn_sync']);

let installed = false;

/** Installs the guard once per worker, before any agent module loads. */
export function guardChildProcesses(): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  const cp = require('node:child_process') as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) guard(cp, name, `child_process.${name}()`);
  // every function above ends here for an async child; `new ChildProcess().spawn(...)` reaches it directly
  guard(ChildProcess.prototype as unknown as Record<string, unknown>, 'spawn', 'ChildProcess.prototype.spawn()');
  // an agent's `import { execSync } from 'node:child_process'` sees the guarded functions
  syncBuiltinESMExports();
  const proc = process as unknown as { binding?: (name: string) => unknown };
  const binding = proc.binding;
  if (typeof binding === 'function') {
    Object.defineProperty(process, 'binding', {
      value: (name: string) => {
        if (!allowed && SPAWN_BINDINGS.has(name)) refuseCall(`process.binding(${JSON.stringify(name)})`, why());
        return binding.call(process, name);
      },
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
}

/** A module agent's turn (its import included) starts: what its config allows. */
export function allowChildProcesses(o: { agentId: string; allowed: boolean }): void {
  agentId = o.agentId;
  allowed = o.allowed;
}

/** The turn ended: what it left running (a timer) may not start a process, whatever its agent was allowed. */
export function forbidChildProcesses(): void {
  allowed = false;
}
