// What agent code unrefs in its worker: an unref'd timer or socket is invisible to process.getActiveResourcesInfo().
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/** Whether something an agent unref'd can still run code: a pending timer or immediate, an open socket or server. */
type StillLive = (handle: object) => boolean;

interface Watched {
  handle: object;
  live: StillLive;
  kind: string;
}

const recorded = new Set<Watched>();

type CallSite = { getFileName(): string | null | undefined };

/**
 * Node's own code unrefs on the agent's behalf: undici's clock timer and idle keep-alive sockets after a fetch, an http
 * Agent's free sockets. Those run Node's code, not the agent's, and counting them would end the worker of every agent
 * that fetches. What the agent's own code (or a package it uses) unrefs is its own.
 */
function calledByNode(wrapper: (...args: never[]) => unknown): boolean {
  const { prepareStackTrace, stackTraceLimit } = Error;
  try {
    Error.stackTraceLimit = 1;
    // raw call sites, whatever an agent set Error.prepareStackTrace to
    Error.prepareStackTrace = (_err, sites) => sites;
    const holder: { stack?: CallSite[] } = {};
    Error.captureStackTrace(holder, wrapper);
    const file = holder.stack?.[0]?.getFileName();
    return typeof file === 'string' && file.startsWith('node:');
  } catch {
    return false;
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

type Unref = (this: object, ...args: unknown[]) => unknown;

/** Wraps `proto.unref` so that a call from agent code records its handle, then unrefs it as before. */
function watchUnref(proto: { unref?: Unref }, kind: string, live: StillLive): Unref | undefined {
  const original = proto.unref;
  if (typeof original !== 'function') return undefined;
  const unref: Unref = function (this: object, ...args: unknown[]) {
    if (!calledByNode(unref)) recorded.add({ handle: this, live, kind });
    return original.apply(this, args);
  };
  Object.defineProperty(proto, 'unref', { value: unref, writable: true, configurable: true });
  return original;
}

const timerLive: StillLive = (t) => (t as { _destroyed?: boolean })._destroyed !== true;

let installed = false;
let timeoutUnref: Unref | undefined;

/**
 * Installs the watch once per worker, before any agent module loads. An unref'd timer from `node:timers/promises`
 * (`{ ref: false }`) is made with no unref call to see: the option is dropped there, so the timer is a ref'd one that
 * the live-handle count already sees (in a worker, ref'd or not changes nothing else: Piscina keeps the thread).
 */
export function watchUnrefs(): void {
  if (installed) return;
  installed = true;
  const timeout = setTimeout(() => {}, 0);
  const immediate = setImmediate(() => {});
  clearTimeout(timeout);
  clearImmediate(immediate);
  timeoutUnref = watchUnref(Object.getPrototypeOf(timeout), 'Timeout', timerLive);
  watchUnref(Object.getPrototypeOf(immediate), 'Immediate', timerLive);
  watchUnref(net.Socket.prototype as never, 'Socket', (s) => !(s as net.Socket).destroyed);
  watchUnref(net.Server.prototype as never, 'Server', (s) => (s as net.Server).listening);
  refOnlyTimerPromises();
}

function refOnlyTimerPromises(): void {
  const require = createRequire(import.meta.url);
  const promises = require('node:timers/promises') as Record<string, unknown> & { scheduler?: Record<string, unknown> };
  const withRef = (options: unknown): unknown =>
    typeof options === 'object' && options !== null && (options as { ref?: unknown }).ref === false ? { ...options, ref: true } : options;
  const wrap = (owner: Record<string, unknown>, name: string, optionsAt: number): void => {
    const original = owner[name];
    if (typeof original !== 'function') return;
    owner[name] = function (this: unknown, ...args: unknown[]) {
      if (args.length > optionsAt) args[optionsAt] = withRef(args[optionsAt]);
      return original.apply(this, args);
    };
  };
  wrap(promises, 'setTimeout', 2);
  wrap(promises, 'setImmediate', 1);
  wrap(promises, 'setInterval', 2);
  if (promises.scheduler) wrap(promises.scheduler, 'wait', 1);
  // an agent's later `import { setTimeout } from 'node:timers/promises'` sees the wrapped functions
  syncBuiltinESMExports();
}

/** The worker's own timers are unref'd past the watch: they are not the agent's leftovers. */
export function unrefOwn(timer: ReturnType<typeof setInterval>): void {
  if (timeoutUnref) timeoutUnref.call(timer);
  else timer.unref();
}

/** A module turn starts: what was unref'd before it (at the module's import, say) is standing state, not the turn's. */
export function forgetUnrefs(): void {
  recorded.clear();
}

/** The kinds of what agent code unref'd since `forgetUnrefs` and is still live (a pending timer, an open socket). */
export function unrefdLeft(): string[] {
  const kinds = new Set<string>();
  for (const w of recorded) {
    let live = false;
    try {
      live = w.live(w.handle);
    } catch {
      live = true;
    }
    if (live) kinds.add(`unref'd ${w.kind}`);
  }
  return [...kinds];
}
