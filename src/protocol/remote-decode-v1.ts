// What an A2A 1.0 remote answers (a send's {task|message}, a bare Task, a stream's {task|message|statusUpdate|
// artifactUpdate}) read leniently into the internal model, as remote-decode.ts reads the revisions' answers.
import { z } from 'zod';
import type { RemoteEvent, RemoteTask } from './connections.js';
import {
  Extensions,
  Filename,
  BoundedId,
  MediaType,
  extensionsOf,
  keptPartFieldsOf,
  referencesOf,
  Metadata,
  ReferenceTaskIds,
  SETTLED_STATES,
  type Artifact,
  type Message,
  type Part,
  type TaskState,
  type TaskStatus,
} from './model.js';
import { fileFromV1 } from './codec-v1.js';
import { ArtifactDescription, ArtifactName } from './artifact-text.js';
import { isObject, lenient, parse, RemoteDecodeError, type DecodeContext } from './remote-decode.js';

/**
 * 1.0 states, with those the internal model has no room for read as the nearest one (as for 0.3): rejected ended the
 * task without doing it (failed), auth-required waits for the caller like input-required.
 */
const STATES: Record<string, TaskState> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'failed',
  TASK_STATE_AUTH_REQUIRED: 'input-required',
};
const State = z.string().transform((s, ctx) => {
  const st = Object.hasOwn(STATES, s) ? STATES[s] : undefined;
  if (st === undefined) {
    ctx.addIssue({ code: 'custom', message: `'${s}' is not a 1.0 task state this client can wait on` });
    return z.NEVER;
  }
  return st;
});
const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']).transform((r) => (r === 'ROLE_USER' ? ('user' as const) : ('agent' as const)));

const PartShape = lenient(
  z.object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    // bounded on every part: a file part's become its file's name and type
    mediaType: MediaType.optional(),
    filename: Filename.optional(),
    metadata: Metadata.optional(),
  }),
);

function toPart(p: z.infer<typeof PartShape>): Part {
  const meta = p.metadata !== undefined ? { metadata: p.metadata } : {};
  const kept = keptPartFieldsOf(p);
  if (p.text !== undefined) return { kind: 'text', text: p.text, ...kept, ...meta };
  if (p.raw !== undefined || p.url !== undefined) {
    return { kind: 'file', file: fileFromV1(p), ...meta };
  }
  // 1.0 data may be any JSON value; the internal model's is an object: anything else is kept under `value`
  const d = p.data;
  const data = typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, unknown>) : { value: d ?? null };
  return { kind: 'data', data, ...kept, ...meta };
}

const MessageShape = lenient(
  z.object({
    messageId: BoundedId.optional(),
    contextId: BoundedId.optional(),
    taskId: BoundedId.optional(),
    role: Role,
    parts: z.array(PartShape).default([]),
    metadata: Metadata.optional(),
    extensions: Extensions.optional(),
    referenceTaskIds: ReferenceTaskIds.optional(),
  }),
);
const StatusShape = lenient(z.object({ state: State, message: MessageShape.optional(), timestamp: z.string().optional() }));
const ArtifactShape = lenient(
  z.object({
    artifactId: BoundedId.optional(),
    name: ArtifactName.optional(),
    description: ArtifactDescription.optional(),
    parts: z.array(PartShape).default([]),
    metadata: Metadata.optional(),
    extensions: Extensions.optional(),
  }),
);
const TaskShape = lenient(
  z.object({
    id: BoundedId,
    contextId: BoundedId.optional(),
    status: StatusShape,
    artifacts: z.array(ArtifactShape).optional(),
    history: z.array(MessageShape).optional(),
    metadata: Metadata.optional(),
  }),
);
const StatusUpdate = lenient(z.object({ taskId: BoundedId.optional(), contextId: BoundedId.optional(), status: StatusShape }));
const ArtifactUpdate = lenient(
  z.object({
    taskId: BoundedId.optional(),
    contextId: BoundedId.optional(),
    artifact: ArtifactShape,
    append: z.boolean().optional(),
    lastChunk: z.boolean().optional(),
  }),
);

function toMessage(m: z.infer<typeof MessageShape> | undefined): Message | undefined {
  if (!m || m.parts.length === 0) return undefined;
  return {
    role: m.role,
    parts: m.parts.map(toPart),
    messageId: m.messageId ?? '',
    ...(m.taskId && { taskId: m.taskId }),
    ...(m.contextId && { contextId: m.contextId }),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...extensionsOf(m),
    ...referencesOf(m),
  };
}

function toStatus(s: z.infer<typeof StatusShape>, ctx: DecodeContext): TaskStatus {
  const message = toMessage(s.message);
  return { state: s.state, ...(message && { message }), timestamp: s.timestamp ?? ctx.receivedAt };
}

const toArtifact = (a: z.infer<typeof ArtifactShape>, index: number, chunk: { append?: boolean; lastChunk?: boolean } = {}): Artifact => ({
  artifactId: a.artifactId || `artifact-${index}`,
  index,
  parts: a.parts.map(toPart),
  ...(a.name && { name: a.name }),
  ...(a.description && { description: a.description }),
  ...(chunk.append !== undefined && { append: chunk.append }),
  ...(chunk.lastChunk !== undefined && { lastChunk: chunk.lastChunk }),
  ...(a.metadata !== undefined && { metadata: a.metadata }),
  ...extensionsOf(a),
});

function bareTask(v: unknown, ctx: DecodeContext, what: string): RemoteTask {
  const t = parse(TaskShape, v, what);
  return {
    id: t.id,
    ...(t.contextId && { contextId: t.contextId }),
    status: toStatus(t.status, ctx),
    artifacts: (t.artifacts ?? []).map((a, i) => toArtifact(a, i)),
    ...(t.history !== undefined && { history: t.history.flatMap((m) => toMessage(m) ?? []) }),
    ...(t.metadata !== undefined && { metadata: t.metadata }),
  };
}

/** A message answered instead of a task: the exchange is over, a completed task of one message (as for 0.3). */
function messageAsTask(v: unknown, ctx: DecodeContext, what: string): RemoteTask {
  const m = parse(MessageShape, v, what);
  const message = toMessage(m);
  return {
    id: m.taskId || ctx.taskId || m.messageId || '',
    ...(m.contextId && { contextId: m.contextId }),
    status: { state: 'completed', ...(message && { message }), timestamp: ctx.receivedAt },
    artifacts: [],
  };
}

/** A send's result (`{task}` or `{message}`) or a get's or cancel's (a bare Task), in the internal model. */
export function decodeRemoteTaskV1(v: unknown, ctx: DecodeContext, what = 'result'): RemoteTask {
  if (isObject(v) && !('id' in v)) {
    if ('task' in v) return bareTask(v.task, ctx, `${what}.task`);
    if ('message' in v) return messageAsTask(v.message, ctx, `${what}.message`);
  }
  return bareTask(v, ctx, what);
}

/** One 1.0 stream event; a status is final when its state is terminal or interrupted (1.0 has no `final`). */
export function decodeRemoteEventV1(v: unknown, ctx: DecodeContext, what = 'result'): RemoteEvent {
  if (!isObject(v)) throw new RemoteDecodeError(`${what}: expected an object`);
  if ('task' in v || 'message' in v) return { kind: 'task', task: decodeRemoteTaskV1(v, ctx, what) };
  if ('statusUpdate' in v) {
    const e = parse(StatusUpdate, v.statusUpdate, `${what}.statusUpdate`);
    const status = toStatus(e.status, ctx);
    return { kind: 'status', taskId: e.taskId ?? '', ...(e.contextId && { contextId: e.contextId }), status, final: SETTLED_STATES.has(status.state) };
  }
  if ('artifactUpdate' in v) {
    const e = parse(ArtifactUpdate, v.artifactUpdate, `${what}.artifactUpdate`);
    return { kind: 'artifact', taskId: e.taskId ?? '', ...(e.contextId && { contextId: e.contextId }), artifact: toArtifact(e.artifact, 0, e) };
  }
  throw new RemoteDecodeError(`${what}: not a 1.0 task, message, statusUpdate or artifactUpdate`);
}
