// Worker threads an agent starts: Node does not list them among a thread's live handles, ref'd or unref'd.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { calledByNode, recordLive } from './unrefs.js';

/** A Worker's threadId turns -1 once its thread has exited. */
const running = (w: object): boolean => (w as Worker).threadId !== -1;

let installed = false;

/**
 * A Worker an agent starts runs on after its turn, and its 'message', 'error' and 'exit' listeners run the agent's
 * code in whatever turn the worker serves next. `process.getActiveResourcesInfo()` lists none, ref'd or not (only
 * its port, while the port is ref'd by a 'message' listener and the Worker is not unref'd), so each one agent code starts is recorded as it is made (a Proxy on the constructor of `node:worker_threads`, installed
 * before any agent loads; `instanceof`, the prototype and subclasses behave as before), and one still running at the
 * turn's end recycles the worker. Ending the worker ends the threads it started (Node stops a thread's sub-workers).
 */
export function watchStartedWorkers(): void {
  if (installed) return;
  installed = true;
  const threads = createRequire(import.meta.url)('node:worker_threads') as Record<string, unknown>;
  const original = threads.Worker;
  if (typeof original !== 'function') return;
  type Made = new (...args: unknown[]) => object;
  const construct = (target: Made, args: unknown[], newTarget: Made): object => {
    const made = Reflect.construct(target, args, newTarget) as object;
    if (!calledByNode(construct)) recordLive({ handle: made, live: running, label: 'Worker thread' });
    return made;
  };
  const watched = new Proxy(original as Made, { construct });
  threads.Worker = watched;
  // `new worker.constructor(...)` is watched too
  Object.defineProperty((original as { prototype: object }).prototype, 'constructor', {
    value: watched,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  // an agent's `import { Worker } from 'node:worker_threads'` sees the Proxy
  syncBuiltinESMExports();
}
