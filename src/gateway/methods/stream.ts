// Streaming methods: a send that streams (tasks/sendSubscribe, message/stream, SendStreamingMessage) and a stream of
// an existing task (tasks/resubscribe, SubscribeToTask), each in the call's dialect.
import { codecs } from '../../protocol/codec.js';
import { RpcError, stateMessages } from '../../protocol/errors.js';
import { parseEventId, type StreamPosition } from '../../protocol/event-ids.js';
import { TERMINAL_STATES } from '../../protocol/model.js';
import { echoed } from '../../protocol/one-line.js';
import { StreamResult, answerDialect, readsOf, viewOptions, visibleTask, type CallContext, type GatewayParts } from '../context.js';
import { runStream } from '../stream.js';
import { prepareSend, sendDialect } from './send.js';

export async function sendStream(params: unknown, ctx: CallContext, parts: GatewayParts) {
  // everything that can be refused is refused here, as a plain JSON-RPC error, before the stream opens
  const prepared = await prepareSend(params, ctx, parts, { streaming: true });
  const dialect = sendDialect(ctx);
  const p = prepared.params;
  const view = viewOptions(ctx, p.historyLength ?? p.configuration?.historyLength);
  const workspaceId = ctx.key.workspaceId;
  const fromSeq = prepared.task.seq ?? 0;
  return new StreamResult({
    keyId: ctx.key.id,
    start: (sink) =>
      runStream(
        {
          parts,
          ctx,
          dialect,
          view,
          workspaceId,
          taskId: prepared.task.id,
          // a follow-up streams what its message causes: replay from the task's seq before it
          after: fromSeq > 0 ? { seq: fromSeq } : undefined,
          begin: () => prepared.go(),
        },
        sink,
      ),
  });
}

function parseLastEventId(v: string | undefined): StreamPosition | undefined {
  if (v === undefined) return undefined;
  const at = parseEventId(v);
  if (!at) {
    throw new RpcError('INVALID_PARAMS', {
      message: `Invalid Last-Event-ID header: '${echoed(v)}' is not an event id of this stream`,
      data: { path: 'Last-Event-ID' },
    });
  }
  return at;
}

export async function resubscribe(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).taskQuery(params);
  const after = parseLastEventId(ctx.lastEventId);
  const t = await visibleTask(parts, ctx, p.id);
  // 1.0: a terminal task has nothing more to stream (a client that missed its end replays it with Last-Event-ID)
  if (after === undefined && TERMINAL_STATES.has(t.status.state) && ctx.dialect !== undefined && codecs[ctx.dialect].subscribe.refusesTerminal) {
    throw new RpcError('UNSUPPORTED_OPERATION', {
      ...stateMessages((name) => `Task ${t.id} is ${name(t.status.state)}: a terminal task cannot be subscribed to (send Last-Event-ID to replay its events)`),
      data: { id: t.id, state: t.status.state },
    });
  }
  const dialect = answerDialect(ctx, t);
  return new StreamResult({
    keyId: ctx.key.id,
    start: (sink) => runStream({ parts, ctx, dialect, view: viewOptions(ctx, p.historyLength), workspaceId: t.workspaceId, taskId: t.id, after }, sink),
  });
}
