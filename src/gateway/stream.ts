// One task's event stream for one SSE client: replay from the store after Last-Event-ID (or the current task), then live.
import { codecs } from '../protocol/codec.js';
import { errorResponse } from '../protocol/envelope.js';
import { RpcError } from '../protocol/errors.js';
import { lastEventIdData, openingEventId, type StreamPosition } from '../protocol/event-ids.js';
import type { TaskEvent } from '../protocol/events.js';
import { SETTLED_STATES, type Task, type TaskDialect } from '../protocol/model.js';
import { gateArtifact, gateStatus, taskView, type TaskViewOptions } from '../protocol/views.js';
import { toSanitizedJson } from '../runtime/sanitizer.js';
import { taskKey } from '../runtime/store/types.js';
import type { SharedSseEvent, SseSink } from './api.js';
import type { CallContext, GatewayParts } from './context.js';
import { watchReach } from './reach-watch.js';

export interface StreamSpec {
  parts: GatewayParts;
  ctx: CallContext;
  dialect: TaskDialect;
  view: TaskViewOptions;
  workspaceId: string;
  taskId: string;
  /**
   * where the client stands (Last-Event-ID, or a follow-up's seq before its message): replay the stored events after
   * this seq, or send the rest of the opening it names, instead of starting with the current task
   */
  after?: StreamPosition;
  /** runs once the subscription is live and before the first read (a send starts its task here) */
  begin?: () => Promise<unknown>;
}

const isFinal = (ev: TaskEvent) => ev.kind === 'status' && ev.final;

/**
 * What a subscriber sends of one event: its JSON-RPC response but for the request's id, which each subscriber puts in
 * between (`head` + id + `tail`); and whether it ends the stream.
 */
interface Prepared {
  readonly event: SharedSseEvent;
  readonly final: boolean;
}

/** the response envelope's text before the request's id; the rest, with the result, is each event's `tail` */
const ENVELOPE_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * A live batch reaches every local subscriber as the same array (bus.ts): subscribers that see it alike (dialect and
 * result gates) share one preparation of each of its events, looked up once per batch, instead of each numbering,
 * building and sanitizing its own (a fan-out to a hundred streams did that work a hundred times per event).
 */
const preparedBatches = new WeakMap<readonly TaskEvent[], Map<string, Prepared[]>>();
function preparedBatch(events: readonly TaskEvent[], view: string): Prepared[] {
  let byView = preparedBatches.get(events);
  if (!byView) preparedBatches.set(events, (byView = new Map()));
  let list = byView.get(view);
  if (list === undefined) byView.set(view, (list = []));
  return list;
}

const prepared = (id: string, resultJson: string, final: boolean): Prepared => ({
  event: { id, head: ENVELOPE_HEAD, tail: `,"result":${resultJson}}` },
  final,
});

const eventsMissed = (lastEventId: number) =>
  new RpcError('INTERNAL_ERROR', {
    message: 'Stream closed: events after the last one sent are no longer kept; resubscribe with Last-Event-ID',
    data: { detail: 'events_missed', lastEventId },
  });

export function runStream(spec: StreamSpec, sink: SseSink): () => void {
  const { parts, ctx } = spec;
  const key = taskKey(spec.workspaceId, spec.taskId);
  const codec = codecs[spec.dialect];
  const viewKey = `${spec.dialect}:${spec.view.results ? 1 : 0}${spec.view.files ? 1 : 0}`;
  let last = Number.POSITIVE_INFINITY; // nothing live goes out before the starting point is known
  let newestSent = 0; // the seq of the newest event sent (a replay's starting point is not one)
  let buffered: TaskEvent[] | undefined = [];
  let closed = false;
  let cancelPing: () => void = () => {};
  let unreach: () => void = () => {};
  let task: Pick<Task, 'id' | 'contextId'> = { id: spec.taskId, contextId: '' };

  const close = () => {
    if (closed) return;
    closed = true;
    sub.unsubscribe();
    unwatch();
    unreach();
    cancelPing();
  };
  // a ping goes out after pingIntervalMs of silence. Events only stamp the time: one timer per stream, re-armed when it
  // fires, instead of one re-armed per event per subscriber (a fan-out to many streams sends many events)
  let lastSentAt = 0;
  let pinging = false;
  const armPing = (ms: number) => {
    cancelPing = parts.timers.after(ms, () => {
      if (closed) return;
      const every = parts.streaming.pingIntervalMs;
      const quiet = parts.clock.now() - lastSentAt;
      if (quiet < every) return armPing(every - quiet);
      sink.comment('ping');
      lastSentAt = parts.clock.now();
      armPing(every);
      // a quiet stream looks in the store for what the bus may have dropped (another instance's events, sent while
      // this one was cut off from Redis: pub/sub keeps nothing for a subscriber that is away)
      catchUp();
    });
  };
  const fail = (e: RpcError) => {
    if (closed) return;
    // in the call's error shape, as its errors before the stream opened: not the events' (a task's own dialect)
    sink.end({ data: toSanitizedJson(errorResponse(ctx.rpcId, e, { v1: ctx.errorsV1 })) });
    close();
  };
  // what each event's response envelope holds of this stream: the request's own id (prepared() has the rest)
  const rpcId = JSON.stringify(ctx.rpcId);
  /** Writes one event; false once the stream is closed (by this event or before). The caller stamps the time. */
  const put = (p: Prepared): boolean => {
    if (closed) return false;
    const { id } = p.event;
    const ok = sink.sharedEvent(p.event, rpcId);
    if (!ok) {
      fail(
        new RpcError('INTERNAL_ERROR', {
          message: 'Stream closed: the client fell too far behind; resubscribe with Last-Event-ID',
          data: { detail: 'backpressure', lastEventId: lastEventIdData(id) },
        }),
      );
      return false;
    }
    if (p.final) {
      sink.end();
      close();
      return false;
    }
    return true;
  };
  /** Something went out now: the ping waits for the next silence (one clock read per write, not per event). */
  const sent = () => {
    if (closed) return;
    lastSentAt = parts.clock.now();
    if (!pinging) {
      pinging = true;
      armPing(parts.streaming.pingIntervalMs);
    }
  };
  const send = (id: string, resultJson: string, final: boolean) => {
    if (put(prepared(id, resultJson, final))) sent();
  };
  const prepare = (ev: TaskEvent): Prepared => prepared(String(ev.seq), toSanitizedJson(codec.event(task, gate(ev))), isFinal(ev));
  /**
   * Sends what is past the stream's position; false once the stream is closed. `shared`: this live batch's preparations,
   * which every subscriber that sees the batch alike fills and reads (the event at `at` of the batch).
   */
  const deliver = (ev: TaskEvent, shared?: Prepared[], at = 0): boolean => {
    if (ev.seq <= last) return !closed;
    last = ev.seq;
    newestSent = ev.seq;
    return put(shared ? (shared[at] ??= prepare(ev)) : prepare(ev));
  };
  /** events one at a time from the store (a replay, a catch-up): stamped as they go out */
  const deliverOne = (ev: TaskEvent) => {
    if (deliver(ev)) sent();
  };
  // results.read / results.files apply to streamed artifacts and status messages as they do to tasks/get
  const gate = (ev: TaskEvent): TaskEvent =>
    ev.kind === 'status' ? { ...ev, status: gateStatus(ev.status, spec.view) } : { ...ev, artifact: gateArtifact(ev.artifact, spec.view) };

  // a key revoked (or expired) while its stream is open ends the stream, as its next request would be refused
  const unwatch = parts.keyWatch.watch(ctx.key.id, (why) =>
    fail(new RpcError('UNAUTHORIZED', { message: why === 'revoked' ? 'Unauthorized: API key revoked' : 'Unauthorized: API key expired' })),
  );
  // after the opening, live events are held while the store is read for missing ones
  let live = false;
  let catching = false;
  const catchUp = () => {
    if (!live || catching || closed) return;
    catching = true;
    buffered ??= [];
    void (async () => {
      let missed: TaskEvent[];
      try {
        missed = await parts.store.events.after(key, last);
      } catch {
        // the store does not answer either: live events stay held, and the next quiet interval tries again
        catching = false;
        return;
      }
      catching = false;
      // the oldest missed ones were trimmed: the client must resubscribe (it then gets the current task)
      if (missed.length > 0 && missed[0]!.seq !== last + 1) return fail(eventsMissed(last));
      for (const ev of missed) deliverOne(ev);
      const pending = buffered ?? [];
      buffered = undefined;
      // the store had every event published before the read: what is held is in order after them
      for (const ev of pending) deliverOne(ev);
    })();
  };
  // a live event past the next seq means the bus dropped some: take them from the store first. One time stamp per batch.
  const deliverLive = (events: readonly TaskEvent[]) => {
    let shared: Prepared[] | undefined;
    let wrote = false;
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]!;
      if (buffered) buffered.push(ev);
      else if (ev.seq > last + 1) {
        buffered = [ev];
        catchUp();
      } else {
        wrote ||= ev.seq > last;
        if (!deliver(ev, (shared ??= preparedBatch(events, viewKey)), i)) return;
      }
    }
    if (wrote) sent();
  };
  const sub = parts.bus.subscribe(key, deliverLive);

  void (async () => {
    await sub.ready;
    if (spec.begin) await spec.begin();
    const current = await parts.supervisor.get(spec.workspaceId, spec.taskId);
    if (!current) throw new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${spec.taskId}` });
    task = current;
    // a key taken off the agent's permitted keys (a relay agent's) ends its stream, as its next request would be
    // answered "not found"
    unreach = watchReach({
      agents: parts.agents,
      key: ctx.key,
      agentId: current.agentId,
      lost: () => fail(new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${spec.taskId}`, data: { id: spec.taskId } })),
    });
    if (closed) return unreach(); // closed while the task was read (close() ran before there was a watch to stop)
    let replayed = false;
    const seqNow = current.seq ?? 0;
    let openingSent = 0; // events of the opening the client already has (it resumed from an opening's `S:k`)
    if (spec.after !== undefined) {
      const after = spec.after.seq;
      // an id past the task's last event was never sent: waiting for the task to reach it would drop every event up
      // to it, or hang for good on a finished task
      if (after > seqNow) {
        throw new RpcError('INVALID_PARAMS', {
          message: `Invalid Last-Event-ID header: ${after} is past the last event of task ${spec.taskId} (${seqNow})`,
          data: { path: 'Last-Event-ID' },
        });
      }
      if (spec.after.opening !== undefined) {
        // the rest of that opening while the task still stands where it did (a settled task always does). A task that
        // moved on since cannot give that opening again: the stream starts with the current task, as after a gap
        if (after === seqNow) openingSent = spec.after.opening;
      } else {
        const events = await parts.store.events.after(key, after);
        // replay is exact only when nothing between Last-Event-ID and the first retained event was trimmed
        if (events.length === 0 ? seqNow <= after : events[0]!.seq === after + 1) {
          last = after;
          // a replay can be long: pace it by the reader instead of queueing it all at once
          for (const ev of events) {
            if (closed) return;
            deliverOne(ev);
            if (sink.backlog() > 0) await sink.drained();
          }
          replayed = true;
        }
      }
    }
    if (!replayed) {
      last = seqNow;
      const settled = SETTLED_STATES.has(current.status.state);
      // the task as it stands, in the dialect's opening events: the last of them ends the stream when the task is
      // settled. Each carries its own id (event-ids.ts), so a resume from any of them continues after it
      const opening = codec.openingEvents(taskView(current, spec.view), settled);
      if (openingSent >= opening.length) {
        throw new RpcError('INVALID_PARAMS', {
          message: `Invalid Last-Event-ID header: the opening of task ${spec.taskId} at ${seqNow} has no event ${openingSent} before its last`,
          data: { path: 'Last-Event-ID' },
        });
      }
      for (let i = openingSent; i < opening.length; i++) {
        send(openingEventId({ seq: last, k: i + 1, count: opening.length }), toSanitizedJson(opening[i]), settled && i === opening.length - 1);
      }
    }
    const pending = buffered ?? [];
    buffered = undefined;
    live = true;
    deliverLive(pending);
    // a replay that reached a settled task's end (Last-Event-ID at or past its final event) has nothing more to wait
    // for: the stream ends, as one without Last-Event-ID does, instead of staying open for good. Only once it reached
    // it: the task read here may be the live actor's, ahead of the events stored so far (those after come live)
    if (replayed && !catching && !buffered && SETTLED_STATES.has(current.status.state) && last >= seqNow && newestSent <= seqNow) {
      if (!closed) sink.end();
      close();
    }
  })().catch((e: unknown) => fail(e instanceof RpcError ? e : new RpcError('INTERNAL_ERROR', { message: 'Stream failed' })));

  return close;
}
