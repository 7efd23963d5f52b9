// What agent code unrefs in its worker: an unref'd timer, socket, watcher, port or channel is invisible to process.getActiveResourcesInfo().
import { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel, MessagePort } from 'node:worker_threads';
import { refOnlyOptions } from './ref-options.js';

/** Whether something an agent unref'd can still run code: a pending timer or immediate, an open socket or server... */
export type StillLive = (handle: object) => boolean;

export interface Watched {
  handle: object;
  live: StillLive;
  /** what the turn's end names it: "unref'd Timeout", "Worker thread" */
  label: string;
  /** the live handles it holds among those Node lists, by kind: the count then does not name them a second time */
  holds?: ReadonlyMap<string, number>;
}

const recorded = new Set<Watched>();

type CallSite = { getFileName(): string | null | undefined };

/**
 * Node's own code unrefs on the agent's behalf: undici's clock timer and idle keep-alive sockets after a fetch, an http
 * Agent's free sockets. Those run Node's code, not the agent's, and counting them would end the worker of every agent
 * that fetches. What the agent's own code (or a package it uses) unrefs is its own.
 */
export function calledByNode(wrapper: (...args: never[]) => unknown): boolean {
  return callerFile(wrapper)?.startsWith('node:') ?? false;
}

/** The file of the code that called `wrapper` (`node:internal/...` for Node's own), or undefined when unknown. */
export function callerFile(wrapper: (...args: never[]) => unknown): string | undefined {
  const { prepareStackTrace, stackTraceLimit } = Error;
  try {
    Error.stackTraceLimit = 1;
    // raw call sites, whatever an agent set Error.prepareStackTrace to
    Error.prepareStackTrace = (_err, sites) => sites;
    const holder: { stack?: CallSite[] } = {};
    Error.captureStackTrace(holder, wrapper);
    return holder.stack?.[0]?.getFileName() ?? undefined;
  } catch {
    return undefined;
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

type Unref = (this: object, ...args: unknown[]) => unknown;

/** Each watched prototype's own unref, for the worker's own handles (`unrefOwn`). */
const originals = new Map<object, Unref>();

/** Wraps `proto.unref` so that a call from agent code records its handle, then unrefs it as before. */
function watchUnref(proto: { unref?: Unref } | undefined, kind: string, live: StillLive, onRecord?: (handle: object) => void): void {
  const original = proto?.unref;
  if (!proto || typeof original !== 'function' || originals.has(proto)) return;
  const unref: Unref = function (this: object, ...args: unknown[]) {
    if (!calledByNode(unref)) {
      recordLive({ handle: this, live, label: `unref'd ${kind}` });
      onRecord?.(this);
    }
    return original.apply(this, args);
  };
  Object.defineProperty(proto, 'unref', { value: unref, writable: true, configurable: true });
  originals.set(proto, original);
}

const timerLive: StillLive = (t) => (t as { _destroyed?: boolean })._destroyed !== true;
/** fs.watch's FSWatcher and fs.watchFile's StatWatcher drop their handle when closed or stopped */
const watcherLive: StillLive = (w) => (w as { _handle?: unknown })._handle != null;
/** a dgram socket answers its address only while bound and open */
const dgramLive: StillLive = (s) => {
  try {
    (s as dgram.Socket).address();
    return true;
  } catch {
    return false;
  }
};
const childLive: StillLive = (c) => (c as ChildProcess).exitCode === null && (c as ChildProcess).signalCode === null;

/**
 * A MessagePort or a BroadcastChannel tells no one it is closed: closed ones are marked as they close (this end's
 * `close()` at once, a port's other end by the 'close' event, which does not hold the port open).
 */
const closed = new WeakSet<object>();
const notClosed: StillLive = (p) => !closed.has(p);

/** Wraps `proto.close` so that what it closes is marked closed. */
function markCloses(proto: { close: (this: object) => void }): void {
  const close = proto.close;
  Object.defineProperty(proto, 'close', {
    value: function (this: object) {
      closed.add(this);
      return close.call(this);
    },
    writable: true,
    configurable: true,
  });
}

function watchPorts(): void {
  // the worker's parentPort keeps the close it had: shared-globals wraps that one
  const port = MessagePort.prototype as unknown as { close: (this: object) => void; unref?: Unref };
  markCloses(port);
  watchUnref(port, 'MessagePort', notClosed, (p) => {
    (p as MessagePort).once('close', () => closed.add(p));
  });
  // A BroadcastChannel reaches every thread of the process: its listener runs whenever any of them posts on its name.
  // Its unref calls its port's, which is Node's call and so not recorded: the channel's own is wrapped.
  const channel = BroadcastChannel.prototype as unknown as { close: (this: object) => void; unref?: Unref };
  markCloses(channel);
  watchUnref(channel, 'BroadcastChannel', notClosed);
}

/** The prototype of what `make` returns (then closed), or undefined where it cannot be made. */
function protoOf(make: () => { close?: () => void; stop?: () => void } | undefined, end: (made: object) => void): object | undefined {
  try {
    const made = make();
    if (!made) return undefined;
    end(made);
    return Object.getPrototypeOf(made) as object;
  } catch {
    return undefined;
  }
}

let installed = false;

/**
 * Installs the watch once per worker, before any agent module loads. What Node makes unref'd with no unref call to
 * see (a `{ ref: false }` timer of `node:timers/promises`, a `{ persistent: false }` fs watcher) is made ref'd
 * instead (ref-options.ts), so the live-handle count sees it.
 */
export function watchUnrefs(): void {
  if (installed) return;
  installed = true;
  const timeout = setTimeout(() => {}, 0);
  const immediate = setImmediate(() => {});
  clearTimeout(timeout);
  clearImmediate(immediate);
  watchUnref(Object.getPrototypeOf(timeout), 'Timeout', timerLive);
  watchUnref(Object.getPrototypeOf(immediate), 'Immediate', timerLive);
  watchUnref(net.Socket.prototype as never, 'Socket', (s) => !(s as net.Socket).destroyed);
  watchUnref(net.Server.prototype as never, 'Server', (s) => (s as net.Server).listening);
  watchUnref(dgram.Socket.prototype as never, 'dgram socket', dgramLive);
  watchUnref(ChildProcess.prototype as never, 'child process', childLive);
  // fs exports neither watcher class: one of each is made on this file's folder and closed at once. Not persistent, so
  // never among the live handles: a closed handle stays listed until its close completes, a loop turn later, and a
  // fresh worker's first turn could begin before that, count it as standing state and miss an agent's watcher that
  // the count then shows as many of as before
  const here = fileURLToPath(new URL('.', import.meta.url));
  const noop = (): void => {};
  watchUnref(
    protoOf(
      () => fs.watch(here, { persistent: false }, noop),
      (w) => (w as fs.FSWatcher).close(),
    ) as never,
    'fs watcher',
    watcherLive,
  );
  watchUnref(
    protoOf(
      () => fs.watchFile(here, { persistent: false, interval: 2 ** 30 }, noop) as never,
      () => fs.unwatchFile(here, noop),
    ) as never,
    'fs watcher',
    watcherLive,
  );
  watchPorts();
  refOnlyOptions();
}

/** The worker's own timers and ports are unref'd past the watch: they are not the agent's leftovers. */
export function unrefOwn(handle: { unref(): unknown }): void {
  for (let proto = Object.getPrototypeOf(handle) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const original = originals.get(proto);
    if (original) {
      original.call(handle);
      return;
    }
  }
  handle.unref();
}

/**
 * Records what agent code made or started that the live-handle count misses (a Worker thread, ref'd or not) or sees
 * only net of the turn's other handles (a promise watcher): `label` names it while `live` says it can still run code.
 */
export function recordLive(w: Watched): void {
  recorded.add(w);
}

/** A module turn starts: what was unref'd before it (at the module's import, say) is standing state, not the turn's. */
export function forgetUnrefs(): void {
  recorded.clear();
}

/**
 * The kinds of what agent code unref'd or started since `forgetUnrefs` and is still live (a pending timer, an open
 * socket), and how many of each kind of live handle those hold (`held`, to take off the count).
 */
export function unrefdLeft(): { kinds: string[]; held: Map<string, number> } {
  const kinds = new Set<string>();
  const held = new Map<string, number>();
  for (const w of recorded) {
    let live = false;
    try {
      live = w.live(w.handle);
    } catch {
      live = true;
    }
    if (!live) continue;
    kinds.add(w.label);
    for (const [kind, n] of w.holds ?? []) held.set(kind, (held.get(kind) ?? 0) + n);
  }
  return { kinds: [...kinds], held };
}
