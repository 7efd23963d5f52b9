// `ctx.call` in the worker: one MessageChannel per call to the main thread, whose replies become a promise or a stream.
import { MessageChannel, type MessagePort, parentPort } from 'node:worker_threads';
import { MAX_CALL_MESSAGE_DEPTH } from '../../protocol/agent-events.js';
import { unrefOwn } from './unrefs.js';
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import type { Metadata, Part } from '../../protocol/model.js';
import { tooDeepAt } from '../../protocol/json-depth.js';
import { jsonBytesAtLeast, tooLargeText } from '../../protocol/json-size.js';
import { describeThrown } from './thrown.js';
import type { CallCancel, CallOpen, CallReply } from './wire.js';

/** What `ctx.call` rejects (or its stream throws) with: `code` is stable, `message` says what went wrong. */
export class CallError extends Error {
  readonly code: string;
  /** the remote's JSON-RPC error code, for code 'remote_error' */
  readonly remoteCode: number | undefined;
  constructor(code: string, message: string, remoteCode?: number) {
    super(message);
    this.name = 'CallError';
    this.code = code;
    this.remoteCode = remoteCode;
  }
}

/**
 * A string is one text part; `extensions` name the A2A extensions the message uses (sent to the remote);
 * `taskId`/`contextId` continue a remote task that asked for input.
 */
export type CallMessage = string | { parts: Part[]; metadata?: Metadata; extensions?: string[]; taskId?: string; contextId?: string };

export interface CallOptions {
  /** aborting cancels the call: it rejects with code 'canceled' and the gateway stops it (and asks the remote to cancel) */
  signal?: AbortSignal;
  stream?: boolean;
}

export interface CallFn {
  (connection: string, message: CallMessage, opts: CallOptions & { stream: true }): AsyncIterable<RemoteEvent>;
  (connection: string, message: CallMessage, opts?: CallOptions & { stream?: false }): Promise<RemoteTask>;
}

/** Where one call's replies go: a promise or a stream. */
interface Sink {
  event(ev: RemoteEvent): void;
  done(task: RemoteTask): void;
  fail(err: CallError): void;
}

/** The run a call belongs to: its id and key, and the most bytes a call's message may take (none: unbounded). */
interface CallRun {
  id: number;
  key: string | undefined;
  maxBytes?: number;
}

/** One call in flight: owns the worker's end of the channel until a result, an error or the agent's cancel. */
class OpenCall {
  readonly #connection: string;
  readonly #sink: Sink;
  #port: MessagePort | null = null;
  #signal: AbortSignal | undefined;
  #ended = false;

  constructor(connection: unknown, sink: Sink) {
    // only a name: String() of an agent's value may throw (a symbol, a hostile toString)
    this.#connection = typeof connection === 'string' ? connection : '(not a connection name)';
    this.#sink = sink;
  }

  start(run: CallRun, call: { connection: unknown; message: unknown; stream: boolean }, signal: AbortSignal | undefined): void {
    let refused: CallError | null;
    try {
      refused = this.#open(run, call, signal);
    } catch (err) {
      // a getter or proxy of the agent's that throws while the message is read
      refused = new CallError('invalid_request', `message: cannot be read: ${describeThrown(err)}`);
    }
    if (refused) this.#end(refused);
  }

  /** Posts the call with its port to the main thread, or says why it cannot go. */
  #open(run: CallRun, call: { connection: unknown; message: unknown; stream: boolean }, signal: AbortSignal | undefined): CallError | null {
    if (signal?.aborted) return new CallError('canceled', `the call to ${this.#connection} was canceled before it started`);
    const deep = tooDeepAt(call.message, { limit: MAX_CALL_MESSAGE_DEPTH, root: 'message' });
    if (deep !== undefined) return new CallError('invalid_request', `${deep}: nested deeper than ${MAX_CALL_MESSAGE_DEPTH} levels`);
    // measured before structured clone copies it to the main thread (which checks it again)
    if (run.maxBytes !== undefined && jsonBytesAtLeast(call.message, run.maxBytes) > run.maxBytes) {
      return new CallError('invalid_request', tooLargeText('message', run.maxBytes));
    }
    if (!parentPort) return new CallError('client_mode_off', 'ctx.call works only inside the agent pool');
    const { port1, port2 } = new MessageChannel();
    const open: CallOpen = { a2aCall: run.id, key: run.key, port: port2, call };
    try {
      parentPort.postMessage(open, [port2]);
    } catch (err) {
      port1.close();
      port2.close();
      return new CallError('invalid_request', `message: cannot cross threads: ${describeThrown(err)}`);
    }
    port1.on('message', this.#onReply);
    // the call must never be what keeps the worker alive
    unrefOwn(port1);
    this.#port = port1;
    if (signal) {
      this.#signal = signal;
      signal.addEventListener('abort', this.cancel, { once: true });
    }
    return null;
  }

  /** The agent's signal aborted, or it stopped reading a stream: the main thread stops the call. */
  readonly cancel = (): void => {
    if (this.#ended) return;
    const cancel: CallCancel = { kind: 'cancel' };
    this.#port?.postMessage(cancel);
    this.#end(new CallError('canceled', `the call to ${this.#connection} was canceled by the agent`));
  };

  readonly #onReply = (reply: CallReply): void => {
    if (this.#ended) return;
    if (reply.kind === 'event') this.#sink.event(reply.event);
    else if (reply.kind === 'result') this.#end(null, reply.task);
    else this.#end(new CallError(reply.code, reply.message, reply.remoteCode));
  };

  #end(err: CallError | null, task?: RemoteTask): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#signal?.removeEventListener('abort', this.cancel);
    this.#port?.close();
    if (err) this.#sink.fail(err);
    else if (task) this.#sink.done(task);
  }
}

/** A streaming call as the agent reads it: each event in order, then the final task as `{ kind: 'task' }`, then the end. */
class CallStream implements AsyncIterableIterator<RemoteEvent>, Sink {
  readonly #queue: RemoteEvent[] = [];
  #end: { error: CallError | null } | null = null;
  #waiting: { resolve: (r: IteratorResult<RemoteEvent>) => void; reject: (e: unknown) => void } | null = null;
  cancel: () => void = () => {};

  event(ev: RemoteEvent): void {
    if (this.#end) return;
    const w = this.#waiting;
    if (w) {
      this.#waiting = null;
      w.resolve({ value: ev, done: false });
    } else this.#queue.push(ev);
  }

  done(task: RemoteTask): void {
    this.event({ kind: 'task', task });
    this.#finish(null);
  }

  fail(err: CallError): void {
    this.#finish(err);
  }

  next(): Promise<IteratorResult<RemoteEvent>> {
    const ev = this.#queue.shift();
    if (ev) return Promise.resolve({ value: ev, done: false });
    const end = this.#end;
    if (!end) return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
    const error = end.error;
    // the error is thrown once; a later next() sees the end
    end.error = null;
    return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
  }

  /** `break` out of a for-await loop: the call is canceled. */
  return(): Promise<IteratorResult<RemoteEvent>> {
    this.#finish(null);
    this.#queue.length = 0;
    this.cancel();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #finish(error: CallError | null): void {
    if (this.#end) return;
    this.#end = { error };
    const w = this.#waiting;
    if (!w) return;
    this.#waiting = null;
    this.#end.error = null;
    if (error) w.reject(error);
    else w.resolve({ value: undefined, done: true });
  }
}

function invalid(stream: boolean, message: string): Promise<never> | AsyncIterable<RemoteEvent> {
  const err = new CallError('invalid_request', message);
  if (!stream) return Promise.reject(err);
  const s = new CallStream();
  s.fail(err);
  return s;
}

/**
 * `ctx.call` for one run. The agent is untrusted, so every argument is taken as unknown: the options are checked
 * here (they do not cross threads), the connection and message in the main thread.
 */
export function callFor(run: CallRun): CallFn {
  const call = (connection: unknown, message: unknown, opts?: unknown): Promise<RemoteTask> | AsyncIterable<RemoteEvent> => {
    if (opts !== undefined && (typeof opts !== 'object' || opts === null)) return invalid(false, 'opts: must be an object');
    const o = (opts ?? {}) as { signal?: unknown; stream?: unknown };
    const stream = o.stream === true;
    if (o.stream !== undefined && typeof o.stream !== 'boolean') return invalid(false, 'opts.stream: must be a boolean');
    const signal = o.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) return invalid(stream, 'opts.signal: must be an AbortSignal');
    const request = { connection, message: typeof message === 'string' ? { parts: [{ kind: 'text', text: message }] } : message, stream };
    if (stream) {
      const s = new CallStream();
      const open = new OpenCall(connection, s);
      s.cancel = open.cancel;
      open.start(run, request, signal);
      return s;
    }
    const promise = new Promise<RemoteTask>((resolve, reject) => {
      new OpenCall(connection, { event: () => {}, done: resolve, fail: reject }).start(run, request, signal);
    });
    // A call the agent never awaited must not end its worker with an unhandled rejection; awaiting it still throws.
    promise.catch(() => {});
    return promise;
  };
  return call as CallFn;
}
