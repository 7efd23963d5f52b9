// process.env as one module turn leaves it: what a turn changes is put back at its end, for the next agent on the worker.
/**
 * Each worker has its own copy of the process's env (Node's default for a Worker), but every module turn on that
 * worker shares it: a key one agent set or deleted was read by the next agent's turn. Counting or comparing the keys
 * after each turn cost about 25 µs; instead `process.env` is a Proxy over the worker's env that notes the value a key
 * had before the turn's first change of it (a set, a delete, a defineProperty; `Object.assign` sets). Reads go
 * straight to the env; a turn that changes nothing pays one identity check at its end.
 */

const real = process.env;
/** key -> its value before this turn first changed it (undefined: it was absent) */
const before = new Map<string, string | undefined>();

function note(key: string | symbol): void {
  if (typeof key !== 'string' || before.has(key)) return;
  before.set(key, Object.hasOwn(real, key) ? real[key] : undefined);
}

const journaled = new Proxy(real, {
  set(target, key, value) {
    note(key);
    return Reflect.set(target, key, value);
  },
  deleteProperty(target, key) {
    note(key);
    return Reflect.deleteProperty(target, key);
  },
  defineProperty(target, key, desc) {
    note(key);
    return Reflect.defineProperty(target, key, desc);
  },
});

let installed = false;

/** Installs the journal once per worker, before any agent module loads (a module that keeps `process.env` gets it). */
export function journalEnv(): void {
  if (installed) return;
  installed = true;
  process.env = journaled;
}

/** A module turn starts: what the module set at its import is standing state, as with timers and globals. */
export function forgetEnvChanges(): void {
  before.clear();
}

/**
 * Puts back every key the turn changed, and `process.env` itself if the agent assigned another object to it. False
 * when it could not (the agent made `process.env` read-only): that worker is not to serve another turn.
 */
export function restoreEnv(): boolean {
  if (!installed) return true;
  try {
    if (process.env !== journaled) process.env = journaled;
    for (const [key, value] of before) {
      if (value === undefined) Reflect.deleteProperty(real, key);
      else real[key] = value;
    }
    before.clear();
    return process.env === journaled;
  } catch {
    return false;
  }
}
