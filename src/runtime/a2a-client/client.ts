// The A2A client: discovery, then a send in the remote's dialect and the wait for the task to settle (the blocking
// answer, else SSE when asked and offered, else polling), under an overall deadline; an abort cancels the remote task.
import { randomUUID } from 'node:crypto';
import { CLIENT_CODECS, type ClientCodec } from '../../protocol/client-codec.js';
import type { RemoteTask } from '../../protocol/connections.js';
import { RemoteDecodeError, type DecodeContext, type RemoteTaskFold } from '../../protocol/remote-decode.js';
import type { Clock, Timers } from '../clock.js';
import { systemResolve, type Allowlist, type Resolve } from '../net/guard.js';
import { eventIds, followable, keptIds, ownContext, ownEvent, ownEventContext, ownTask, sentIds, taskIds, type NamedIds } from './belongs.js';
import { discover, type CardCacheOptions } from './card-cache.js';
import { EndpointStates } from './endpoint.js';
import { rpcCall, rpcStream, type RpcResult, type RpcTarget } from './jsonrpc.js';
import { checkCallOrigin } from './origin.js';
import { scrubError, scrubValue } from './scrub.js';
import { A2AClientSettings, type A2AClientSettingsInput } from './settings.js';
import { OutboundError, type A2AClient, type Discovered, type RemoteEndpoint, type SendOptions } from './types.js';
import { endsStream, isSettled, pollUntilSettled, raceAbort, saidNotNow, startFold } from './wait.js';

export interface A2AClientOptions extends A2AClientSettingsInput {
  clock: Clock;
  timers: Timers;
  /** the SSRF guard's allowlist (the same setting as webhooks'): internal addresses it holds are admitted */
  allowlist: Allowlist;
  /** name resolution (default: the system's) */
  resolve?: Resolve;
  /** jitter of the poll backoff, in [0, 1) */
  random?: () => number;
}

/** Any failure as an OutboundError: an answer that does not decode is the remote's bad response. */
function outbound(e: unknown): OutboundError {
  if (e instanceof OutboundError) return e;
  if (e instanceof RemoteDecodeError) return new OutboundError('bad_response', `the remote's answer is not a task: ${e.message}`, { cause: e });
  return new OutboundError('bad_response', e instanceof Error ? e.message : String(e), { cause: e });
}

export function createA2AClient(o: A2AClientOptions): A2AClient {
  const settings = A2AClientSettings.parse(o);
  const deps = { clock: o.clock, timers: o.timers, allowlist: o.allowlist, resolve: o.resolve ?? systemResolve, settings };
  const states = new EndpointStates(deps);
  const cards: CardCacheOptions = { deps, states };
  const random = o.random ?? Math.random;
  let closed = false;

  /** Any failure of a call to `endpoint` as an OutboundError, without the endpoint's secrets (a remote may echo them). */
  const failure = (endpoint: RemoteEndpoint, e: unknown) => scrubError(outbound(e), states.secretsOf(endpoint));
  /** What the remote answered, without the endpoint's secrets. */
  const clean = <T>(endpoint: RemoteEndpoint, v: T): T => scrubValue(v, states.secretsOf(endpoint));

  /** `taskId`: the task the answer is about, when known (a message answer naming none is about it) */
  const decodeCtx = (taskId?: string) => ({ receivedAt: new Date(o.clock.now()).toISOString(), ...(taskId ? { taskId } : {}) });
  /** Where a JSON-RPC call goes: the card's endpoint, when the endpoint's credentials may go there (origin.ts). */
  const target = (endpoint: RemoteEndpoint, d: Discovered, codec: ClientCodec, timeoutMs: number, signal?: AbortSignal): RpcTarget => {
    checkCallOrigin(endpoint, d.card.url);
    return { states, st: states.of(endpoint), url: d.card.url, version: codec.version, timeoutMs, ...(signal && { signal }) };
  };

  async function discovered(endpoint: RemoteEndpoint, opts: { fresh?: boolean } = {}): Promise<Discovered> {
    if (closed) throw new OutboundError('unavailable', 'the A2A client is closed');
    return discover(cards, endpoint, opts);
  }

  /** One get or cancel, outside any send: its own deadline, the caller's signal. */
  async function taskCall(kind: 'get' | 'cancel', endpoint: RemoteEndpoint, params: { taskId: string; historyLength?: number }, signal?: AbortSignal) {
    try {
      const d = signal ? await raceAbort(discovered(endpoint), signal) : await discovered(endpoint);
      const codec = CLIENT_CODECS[d.dialect];
      const p = kind === 'get' ? codec.getParams(params) : codec.cancelParams(params);
      const r = await rpcCall(target(endpoint, d, codec, settings.requestTimeoutMs, signal), codec.methods[kind], p);
      const ctx = decodeCtx(params.taskId);
      const task = codec.decodeTask(r.result, ctx);
      keptIds(
        taskIds(task),
        sentIds(r.asSent, (v) => taskIds(codec.decodeTask(v, ctx))),
        codec.methods[kind],
      );
      return clean(endpoint, ownTask(task, params.taskId, codec.methods[kind]));
    } catch (e) {
      throw failure(endpoint, e);
    }
  }

  /** What a send learned on the way: the remote task's id, and whether it must be asked to stop although we did not abort. */
  interface Known {
    taskId?: string;
    /** the context the remote task is in: the one a follow-up was sent in, else the first an answer named */
    contextId?: string;
    stopRemote?: boolean;
    /** the remote task is known and not settled, and we wait on it (polling, or reading its stream) */
    waiting?: boolean;
  }

  async function sendAndWait(so: SendOptions, signal: AbortSignal, deadlineMs: number, known: Known): Promise<RemoteTask> {
    const deadlineAt = o.clock.now() + deadlineMs;
    const d = await raceAbort(discovered(so.endpoint), signal);
    const codec = CLIENT_CODECS[d.dialect];
    const message = so.message.messageId === '' ? { ...so.message, messageId: randomUUID() } : so.message;
    // rev A: a new task's id is ours to pick, so an abort can cancel it before any answer came
    const taskId = so.taskId ?? (codec.clientPicksTaskId ? randomUUID() : undefined);
    known.taskId = taskId;
    known.contextId = so.contextId;
    const params = codec.sendParams({
      message,
      ...(taskId !== undefined && { taskId }),
      ...(so.contextId !== undefined && { contextId: so.contextId }),
      blocking: so.blocking ?? settings.blocking,
    });
    /** An answer about another task fails the call; ours is asked to stop, as its remote's word on it is not to be trusted. */
    const ours = <T>(check: () => T): T => {
      try {
        return check();
      } catch (e) {
        known.stopRemote = true;
        throw e;
      }
    };
    /**
     * Checks that the ids an answer named (`read`) are the remote's as sent (keptIds). The task it names is ours when no
     * other was known: refused, it is asked to stop by its id as sent.
     */
    const kept = (read: NamedIds, sent: NamedIds | undefined, method: string) =>
      ours(() => {
        if (sent && !known.taskId) known.taskId = sent.taskId;
        keptIds(read, sent, method);
      });
    /** A task answer decoded, its ids checked to be the remote's (kept). */
    const taskAnswer = (r: RpcResult, ctx: DecodeContext, method: string): RemoteTask => {
      const task = codec.decodeTask(r.result, ctx);
      kept(
        taskIds(task),
        sentIds(r.asSent, (v) => taskIds(codec.decodeTask(v, ctx))),
        method,
      );
      return task;
    };
    /**
     * `task` in the context the remote task is in: an answer naming none (a remote's later answers may leave it out, a
     * status-only stream never names it on a task) is in the one our follow-up was sent in or an earlier answer named,
     * so the context is kept for the next follow-up and in the stored result (docs/decisions.md).
     */
    const inContext = (task: RemoteTask): RemoteTask => (task.contextId || known.contextId === undefined ? task : { ...task, contextId: known.contextId });
    /** `task` when it is the task asked about (`asked`), in the context it was in. */
    const ownAnswer = (task: RemoteTask, asked: string | undefined, method: string): RemoteTask =>
      ours(() => {
        ownTask(task, asked, method);
        known.contextId = ownContext(task, known.contextId, method);
        return inContext(task);
      });
    const poll = (task: RemoteTask) => {
      known.waiting = true;
      return pollUntilSettled(task, {
        timers: o.timers,
        clock: o.clock,
        signal,
        baseMs: settings.pollBaseMs,
        maxMs: settings.pollMaxMs,
        deadlineAt,
        retryAfterMaxMs: settings.pollRetryAfterMaxMs,
        random,
        get: async () => {
          const r = await rpcCall(target(so.endpoint, d, codec, settings.requestTimeoutMs, signal), codec.methods.get, codec.getParams({ taskId: task.id }));
          return ownAnswer(taskAnswer(r, decodeCtx(task.id), codec.methods.get), task.id, codec.methods.get);
        },
        ...(so.onEvent && { onChange: (t: RemoteTask) => so.onEvent?.({ kind: 'task', task: t }) }),
      });
    };

    if (so.stream && d.card.streaming) {
      let folded: RemoteTaskFold | undefined;
      // the task this stream is about: the one asked about, else the one its first events name
      let streamTask = taskId;
      // an abort before the remote named its task (rev B picks ids remotely) lets the stream run on until its first
      // event brings the id (bounded by the request timeout), so that the abort can cancel the remote task
      const streamCtl = new AbortController();
      let cancelLate = () => {};
      const onAbort = () => {
        if (known.taskId) streamCtl.abort();
        else cancelLate = o.timers.after(settings.requestTimeoutMs, () => streamCtl.abort());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      try {
        for await (const { result, asSent, bytes } of rpcStream(target(so.endpoint, d, codec, deadlineMs, streamCtl.signal), codec.methods.stream, params)) {
          const ctx = decodeCtx(streamTask);
          const ev = codec.decodeEvent(result, ctx);
          kept(
            eventIds(ev),
            sentIds(asSent, (v) => eventIds(codec.decodeEvent(v, ctx))),
            codec.methods.stream,
          );
          streamTask = ours(() => ownEvent(ev, streamTask, codec.methods.stream));
          known.contextId = ours(() => ownEventContext(ev, streamTask, known.contextId, codec.methods.stream));
          folded ??= startFold(ev, { taskId, receivedAt: ctx.receivedAt });
          known.taskId = folded.apply(ev, bytes).id || streamTask || known.taskId;
          known.waiting = !isSettled(folded.task);
          // a stream may pile up no more than one answer may hold: past it we stop, and ask the remote to stop too
          if (folded.weight > settings.maxResponseBytes) {
            known.stopRemote = true;
            throw new OutboundError('bad_response', `the remote's task grew past ${settings.maxResponseBytes} bytes over its ${codec.methods.stream} stream`);
          }
          if (signal.aborted) throw new OutboundError('canceled', 'the call was canceled');
          so.onEvent?.(ev);
          if (endsStream(ev)) break;
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        cancelLate();
        if (signal.aborted) streamCtl.abort();
      }
      if (signal.aborted) throw new OutboundError('canceled', 'the call was canceled');
      if (!folded) throw new OutboundError('bad_response', `the remote's ${codec.methods.stream} stream ended without an event`);
      const task = followable(inContext(folded.task), codec.methods.stream);
      // a stream that ended before the task settled: the rest is polled
      return isSettled(task) ? task : poll(task);
    }

    // a non-blocking send whose id the remote picks is answered at once: it is let finish even when aborted meanwhile,
    // so that the id it brings lets the abort cancel the remote task
    const learnId = (so.blocking ?? settings.blocking) === false && taskId === undefined;
    const r = await rpcCall(
      target(so.endpoint, d, codec, learnId ? settings.requestTimeoutMs : deadlineMs, learnId ? undefined : signal),
      codec.methods.send,
      params,
    );
    const task = followable(ownAnswer(taskAnswer(r, decodeCtx(taskId), codec.methods.send), taskId, codec.methods.send), codec.methods.send);
    known.taskId = task.id || known.taskId;
    if (signal.aborted) throw new OutboundError('canceled', 'the call was canceled');
    so.onEvent?.({ kind: 'task', task });
    return isSettled(task) ? task : poll(task);
  }

  return {
    async discover(endpoint, opts = {}) {
      try {
        const p = discovered(endpoint, opts.fresh ? { fresh: true } : {});
        const d = await (opts.signal ? raceAbort(p, opts.signal) : p);
        // the card is for display (its name in the status, the dashboard's test): the client keeps its own as read
        return { ...d, card: clean(endpoint, d.card) };
      } catch (e) {
        throw failure(endpoint, e);
      }
    },

    async send(so) {
      const deadlineMs = so.timeoutMs ?? settings.timeoutMs;
      if (so.signal?.aborted) throw new OutboundError('canceled', 'the call was canceled before it was sent');
      const ctl = new AbortController();
      let why: 'timeout' | 'canceled' | undefined;
      const onAbort = () => {
        why ??= 'canceled';
        ctl.abort();
      };
      so.signal?.addEventListener('abort', onAbort, { once: true });
      const cancelTimer = o.timers.after(deadlineMs, () => {
        why ??= 'timeout';
        ctl.abort();
      });
      const known: Known = {};
      const listener = so.onEvent;
      const scrubbed: SendOptions = listener ? { ...so, onEvent: (ev) => listener(clean(so.endpoint, ev)) } : so;
      try {
        return clean(so.endpoint, await sendAndWait(scrubbed, ctl.signal, deadlineMs, known));
      } catch (e) {
        // we stop waiting: the remote task is asked to stop too (best effort), unless the caller may not cancel it
        const stop = () => (known.taskId && so.cancelRemote !== false ? taskCall('cancel', so.endpoint, { taskId: known.taskId }).catch(() => {}) : undefined);
        if (why === undefined) {
          // a bad answer while its task works ends our wait: the remote would work on for nobody; so does a "not now"
          // that lasted (five in a row, or a Retry-After past the deadline), a JSON-RPC error's as a bare status's
          if (known.stopRemote || (known.waiting && (outbound(e).code === 'bad_response' || saidNotNow(e)))) await stop();
          throw failure(so.endpoint, e);
        }
        await stop();
        if (why === 'timeout') throw failure(so.endpoint, new OutboundError('timeout', `the remote task did not settle within ${deadlineMs} ms`, { cause: e }));
        throw failure(so.endpoint, new OutboundError('canceled', 'the call was canceled', { cause: e }));
      } finally {
        cancelTimer();
        so.signal?.removeEventListener('abort', onAbort);
      }
    },

    get: (g) => taskCall('get', g.endpoint, { taskId: g.taskId, ...(g.historyLength !== undefined && { historyLength: g.historyLength }) }, g.signal),

    cancel: (c) => taskCall('cancel', c.endpoint, { taskId: c.taskId }, c.signal),

    forget(endpoint) {
      states.forget(endpoint);
    },

    async close() {
      closed = true;
      states.close();
    },
  };
}
