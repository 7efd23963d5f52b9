// The main thread's end of `ctx.call`: checks a call from a worker, hands it to the run's handler, answers on its port.
import { randomUUID } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import { AgentCall, MAX_CALL_MESSAGE_DEPTH } from '../../protocol/agent-events.js';
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import type { Message } from '../../protocol/model.js';
import { tooDeepAt } from '../../protocol/json-depth.js';
import { jsonBytesAtLeast, tooLargeText } from '../../protocol/json-size.js';
import type { CallReply } from '../workers/wire.js';

/** One `ctx.call` of a run's agent, as the pool hands it to `onCall`. */
export interface PoolCall {
  connection: string;
  /** a user message with a fresh messageId */
  message: Message;
  stream: boolean;
  /** aborted when the agent cancels the call, or when its run ends first (success, failure, cancel, timeout, crash) */
  signal: AbortSignal;
  /** streaming calls only: each event goes to the agent as it comes */
  onEvent?: (ev: RemoteEvent) => void;
}

export type CallHandler = (call: PoolCall) => Promise<RemoteTask>;

const errorText = (err: unknown): string => (err instanceof Error ? err.message || err.name : String(err));

/** The module agent is untrusted: a bad call is answered with the fields at fault, and the handler never sees it. */
function check(raw: unknown, maxBytes: number | undefined): { ok: true; call: AgentCall } | { ok: false; message: string } {
  const msg = typeof raw === 'object' && raw !== null && 'message' in raw ? raw.message : undefined;
  // zod does not descend into a data part's values, but the handler's encoder will: refuse what could overflow it
  const deep = tooDeepAt(msg, { limit: MAX_CALL_MESSAGE_DEPTH, root: 'message' });
  if (deep !== undefined) return { ok: false, message: `${deep}: nested deeper than ${MAX_CALL_MESSAGE_DEPTH} levels` };
  // the worker refused it already unless the agent's own code posted it: it must not go out either way
  if (maxBytes !== undefined && jsonBytesAtLeast(msg, maxBytes) > maxBytes) return { ok: false, message: tooLargeText('message', maxBytes) };
  const parsed = AgentCall.safeParse(raw);
  if (parsed.success) return { ok: true, call: parsed.data };
  return { ok: false, message: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'call'}: ${i.message}`).join('; ') };
}

/** What the agent reads of a failure: the handler's `code` when it has one. */
function errorReply(err: unknown): CallReply {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : 'call_failed';
  const remoteCode = typeof err === 'object' && err !== null && 'remoteCode' in err && typeof err.remoteCode === 'number' ? err.remoteCode : undefined;
  return { kind: 'error', code, message: errorText(err), ...(remoteCode === undefined ? {} : { remoteCode }) };
}

/** Answers a call at once and closes its port (a run that already ended, a pool without a handler...). */
export function refuseCall(port: MessagePort, code: string, message: string): void {
  const reply: CallReply = { kind: 'error', code, message };
  try {
    port.postMessage(reply);
  } finally {
    port.close();
  }
}

/** One call being served; ends once (a reply, the agent's cancel, or its run's end) and then closes its port. */
class ServedCall {
  readonly #port: MessagePort;
  readonly #onEnd: (c: ServedCall) => void;
  #controller: AbortController | null = null;
  #ended = false;

  constructor(port: MessagePort, onEnd: (c: ServedCall) => void) {
    this.#port = port;
    this.#onEnd = onEnd;
    // a cancel, or the worker closing its end (it cancels that way too, and a dying thread closes it): nobody waits any more
    const stop = (): void => this.abort('the agent stopped waiting for the call');
    port.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'kind' in m && m.kind === 'cancel') stop();
    });
    port.on('close', stop);
    // a call waiting on a remote must never be what keeps the process alive
    port.unref();
  }

  serve(raw: unknown, handler: CallHandler | undefined, maxBytes: number | undefined): void {
    const checked = check(raw, maxBytes);
    if (!checked.ok) this.#end({ kind: 'error', code: 'invalid_request', message: `ctx.call refused: ${checked.message}` });
    else if (!handler) {
      this.#end({
        kind: 'error',
        code: 'client_mode_off',
        message: 'ctx.call is not available: this gateway runs without client mode (no outbound connections)',
      });
    } else this.#start(checked.call, handler);
  }

  #start(call: AgentCall, handler: CallHandler): void {
    const { connection, message, stream } = call;
    const controller = new AbortController();
    this.#controller = controller;
    let answer: Promise<RemoteTask>;
    try {
      answer = handler({
        connection,
        message: { role: 'user', messageId: randomUUID(), ...message },
        stream,
        signal: controller.signal,
        ...(stream ? { onEvent: (event) => this.#post({ kind: 'event', event }) } : {}),
      });
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (task) => this.#end({ kind: 'result', task }),
      (err: unknown) => this.#end(errorReply(err)),
    );
  }

  /** Stops the handler's work; `reply` tells an agent that may still be listening why. */
  abort(reason: string, reply?: CallReply): void {
    if (this.#ended) return;
    this.#controller?.abort(new Error(reason));
    this.#end(reply ?? null);
  }

  #end(reply: CallReply | null): void {
    if (this.#ended) return;
    this.#ended = true;
    if (reply && !this.#post(reply) && reply.kind === 'result') {
      this.#post({ kind: 'error', code: 'call_failed', message: 'the remote task cannot be passed to the agent' });
    }
    this.#port.close();
    this.#onEnd(this);
  }

  /** False when the value cannot be cloned; posting on a port the worker closed is a silent no-op. */
  #post(reply: CallReply): boolean {
    if (this.#ended && reply.kind === 'event') return false;
    try {
      this.#port.postMessage(reply);
      return true;
    } catch {
      return false;
    }
  }
}

/** A run's open calls, made on its first call: runs that never call pay nothing. */
export class RunCalls {
  readonly #open = new Set<ServedCall>();
  readonly #handler: CallHandler | undefined;
  readonly #counts: { opened: number; open: number };
  readonly #maxBytes: number | undefined;

  /** `maxBytes`: the most a call's message may take (a module agent's output bound); none when undefined */
  constructor(handler: CallHandler | undefined, counts: { opened: number; open: number }, maxBytes?: number) {
    this.#handler = handler;
    this.#counts = counts;
    this.#maxBytes = maxBytes;
  }

  serve(port: MessagePort, raw: unknown): void {
    this.#counts.opened++;
    this.#counts.open++;
    const call = new ServedCall(port, (c) => {
      this.#counts.open--;
      this.#open.delete(c);
    });
    this.#open.add(call);
    call.serve(raw, this.#handler, this.#maxBytes);
  }

  /** The run settled: every call still open is aborted and its port closed. */
  endAll(reason: string): void {
    for (const call of [...this.#open]) call.abort(reason, { kind: 'error', code: 'run_ended', message: `the call was stopped: ${reason}` });
  }
}
