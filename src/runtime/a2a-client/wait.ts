// Waiting for a remote task to settle: folding a stream's events into the task, and polling tasks/get with backoff.
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import { SETTLED_STATES } from '../../protocol/model.js';
import { RemoteTaskFold } from '../../protocol/remote-decode.js';
import type { Clock, Timers } from '../clock.js';
import { backoffDelay } from '../push/backoff.js';
import { OutboundError } from './types.js';

export const isSettled = (t: RemoteTask): boolean => SETTLED_STATES.has(t.status.state);

/**
 * The fold of a stream's events, started by its first. A rev A stream starts with a status event, not a task: the task
 * it describes starts empty then.
 */
export function startFold(ev: RemoteEvent, o: { taskId: string | undefined; receivedAt: string }): RemoteTaskFold {
  return new RemoteTaskFold({
    id: (ev.kind === 'task' ? ev.task.id : ev.taskId) || (o.taskId ?? ''),
    status: { state: 'submitted', timestamp: o.receivedAt },
    artifacts: [],
  });
}

/**
 * Whether a stream may stop reading: the status event that says it is the last (`final`). A whole task in a settled
 * state does not end it: a follow-up's stream may open with the task as it stood (waiting for input) before the new
 * message moved it; a server that ends its stream after such a task closes the stream itself.
 */
export const endsStream = (ev: RemoteEvent): boolean => ev.kind === 'status' && ev.final;

/** Resolves after `ms` on `timers`; rejects (canceled) when `signal` aborts first. */
export function pause(timers: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new OutboundError('canceled', 'the call was canceled'));
    const onAbort = () => {
      cancel();
      reject(new OutboundError('canceled', 'the call was canceled'));
    };
    const cancel = timers.after(ms, () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles with `p`, or rejects (canceled) as soon as `signal` aborts. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new OutboundError('canceled', 'the call was canceled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OutboundError('canceled', 'the call was canceled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export interface PollOptions {
  timers: Timers;
  clock: Clock;
  signal: AbortSignal;
  baseMs: number;
  maxMs: number;
  random: () => number;
  /** when the call's overall deadline passes (clock time): a Retry-After past it is not waited for */
  deadlineAt: number;
  /** the longest Retry-After honoured; a remote asking for longer fails the poll at once */
  retryAfterMaxMs: number;
  get(): Promise<RemoteTask>;
  onChange?(task: RemoteTask): void;
}

/** A task's state, status message and artifacts: what a poll reports when it changed. */
const seen = (t: RemoteTask) => JSON.stringify([t.status.state, t.status.message, t.artifacts]);

/** HTTP statuses that say "not now" (busy, a proxy between deploys), not that the task or the answer is wrong. */
const PASSING_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Whether the remote said "not now": a 429, 502, 503 or 504, with a bare body or with a JSON-RPC error (a gateway's
 * rate limit, -32004, or its store outage come as JSON-RPC errors); both are one answer and are treated alike.
 */
export const saidNotNow = (e: unknown): e is OutboundError =>
  e instanceof OutboundError && (e.code === 'bad_response' || e.code === 'remote_error') && e.httpStatus !== undefined && PASSING_STATUSES.has(e.httpStatus);

/**
 * A poll's failure that may pass: the remote could not be reached or did not answer in time, or said "not now". A
 * tasks/get changes nothing, so it is asked again; a bad answer, a JSON-RPC error sent with another status (task not
 * found) or a refusal is not.
 */
export const passingFailure = (e: unknown): boolean => (e instanceof OutboundError && (e.code === 'unreachable' || e.code === 'timeout')) || saidNotNow(e);

/** Polls in a row that may fail for a passing reason before the last failure stands. */
export const MAX_PASSING_POLL_FAILURES = 5;

/**
 * The wait before the poll after a passing failure `e`: the backoff's, or longer when the remote's Retry-After asks for
 * it (never sooner than asked). A Retry-After past the call's deadline or past the cap is not waited for: the call
 * fails now with the remote's answer, rather than holding its caller until a timeout the remote has announced.
 */
function waitAfterFailure(e: OutboundError, backoffMs: number, o: PollOptions): number {
  const asked = e.retryAfterMs;
  if (asked === undefined || asked <= backoffMs) return backoffMs;
  const leftMs = o.deadlineAt - o.clock.now();
  if (asked > o.retryAfterMaxMs || asked >= leftMs) {
    const why = asked > o.retryAfterMaxMs ? `more than the ${o.retryAfterMaxMs} ms honoured` : `past the call's deadline (${Math.max(0, leftMs)} ms left)`;
    throw new OutboundError(e.code, `${e.message}, asking to be polled again after ${asked} ms (Retry-After): ${why}`, {
      ...(e.remoteCode !== undefined && { remoteCode: e.remoteCode }),
      ...(e.httpStatus !== undefined && { httpStatus: e.httpStatus }),
      retryAfterMs: asked,
      cause: e,
    });
  }
  return asked;
}

/**
 * Polls until the task settles: waits base, 2×base, ... up to max (equal jitter), reporting each poll that changed
 * something. A poll that fails for a passing reason is made again after the next wait (or the remote's Retry-After,
 * within bounds: waitAfterFailure), up to MAX_PASSING_POLL_FAILURES in a row: one 503 from a proxy failed a long task
 * (and cancelled it) before.
 */
export async function pollUntilSettled(task: RemoteTask, o: PollOptions): Promise<RemoteTask> {
  let cur = task;
  let failures = 0;
  let failed: OutboundError | undefined;
  for (let n = 1; !isSettled(cur); n++) {
    const backoffMs = backoffDelay({ baseMs: o.baseMs, maxMs: o.maxMs }, n, o.random);
    await pause(o.timers, failed ? waitAfterFailure(failed, backoffMs, o) : backoffMs, o.signal);
    failed = undefined;
    let next: RemoteTask;
    try {
      next = await o.get();
    } catch (e) {
      if (o.signal.aborted || !passingFailure(e) || ++failures >= MAX_PASSING_POLL_FAILURES) throw e;
      failed = e as OutboundError;
      continue;
    }
    failures = 0;
    if (seen(next) !== seen(cur)) o.onChange?.(next);
    cur = next;
  }
  return cur;
}
