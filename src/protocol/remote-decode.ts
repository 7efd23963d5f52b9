// What a remote agent answers (a Task, a Message, a stream event) read leniently in either dialect's shape into the
// internal model: parts by `type` or `kind`, `sessionId` or `contextId`, artifacts by `index` or `artifactId`.
import { z } from 'zod';
import type { RemoteEvent, RemoteTask } from './connections.js';
import {
  Extensions,
  extensionsOf,
  BoundedId,
  Metadata,
  referencesOf,
  ReferenceTaskIds,
  Role,
  SETTLED_STATES,
  TaskState,
  type Artifact,
  type Message,
  type TaskStatus,
} from './model.js';
import { PartIn } from './params.js';
import { ArtifactDescription, ArtifactName } from './artifact-text.js';

/** A remote answer that does not read as a task or event; its message names the failing field. */
export class RemoteDecodeError extends Error {
  readonly code = 'ERR_REMOTE_DECODE';
  constructor(message: string) {
    super(message);
    this.name = 'RemoteDecodeError';
  }
}

/** What the decoders take from outside: the time to stamp on a status that carries none. */
export interface DecodeContext {
  /** ISO time the answer was received */
  receivedAt: string;
  /** the task the answer is about, when the client knows it: a message answer that names no task is about this one */
  taskId?: string;
}

/** Many servers write `null` for an absent field: read it as absent (both dialects' decoders). */
function nullsAbsent(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  let hasNull = false;
  for (const k in v) if ((v as Record<string, unknown>)[k] === null) hasNull = true;
  if (!hasNull) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
}
export const lenient = <S extends z.ZodType>(s: S) => z.preprocess(nullsAbsent, s);

/**
 * 0.2/0.3 states the internal model has no room for, read as the nearest one: `rejected` ended the task without doing
 * it (failed); `auth-required` waits for the caller like `input-required`; `unknown` cannot be waited on (failed).
 */
const STATE_ALIASES: Record<string, string> = { rejected: 'failed', 'auth-required': 'input-required', unknown: 'failed' };
const RemoteState = z.preprocess((v) => (typeof v === 'string' && Object.hasOwn(STATE_ALIASES, v) ? STATE_ALIASES[v] : v), TaskState);

const RemoteMessage = lenient(
  z.object({
    role: Role,
    parts: z.array(PartIn),
    messageId: BoundedId.optional(),
    taskId: BoundedId.optional(),
    contextId: BoundedId.optional(),
    metadata: Metadata.optional(),
    extensions: Extensions.optional(),
    referenceTaskIds: ReferenceTaskIds.optional(),
  }),
);
type RemoteMessage = z.infer<typeof RemoteMessage>;

const RemoteStatus = lenient(z.object({ state: RemoteState, message: RemoteMessage.optional(), timestamp: z.string().optional() }));

const RemoteArtifact = lenient(
  z.object({
    artifactId: BoundedId.optional(),
    index: z.number().int().nonnegative().optional(),
    name: ArtifactName.optional(),
    description: ArtifactDescription.optional(),
    parts: z.array(PartIn),
    append: z.boolean().optional(),
    lastChunk: z.boolean().optional(),
    metadata: Metadata.optional(),
    extensions: Extensions.optional(),
  }),
);
type RemoteArtifact = z.infer<typeof RemoteArtifact>;

const RemoteTaskShape = lenient(
  z.object({
    id: BoundedId,
    contextId: BoundedId.optional(),
    sessionId: BoundedId.optional(),
    status: RemoteStatus,
    artifacts: z.array(RemoteArtifact).optional(),
    history: z.array(RemoteMessage).optional(),
    metadata: Metadata.optional(),
  }),
);

const StatusEvent = lenient(
  z.object({ taskId: BoundedId.optional(), id: BoundedId.optional(), contextId: BoundedId.optional(), status: RemoteStatus, final: z.boolean().optional() }),
);
const ArtifactEvent = lenient(
  z.object({
    taskId: BoundedId.optional(),
    id: BoundedId.optional(),
    contextId: BoundedId.optional(),
    artifact: RemoteArtifact,
    append: z.boolean().optional(),
    lastChunk: z.boolean().optional(),
  }),
);

/** `v` read by `schema` (either dialect's); a RemoteDecodeError naming the first failing field under `what` otherwise. */
export function parse<S extends z.ZodType>(schema: S, v: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(v);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = [what, ...issue.path.map(String)].join('.');
  throw new RemoteDecodeError(`${path}: ${issue.message}`);
}

/** A message with no parts is no message (the internal model needs at least one part). */
function toMessage(m: RemoteMessage | undefined): Message | undefined {
  if (!m || m.parts.length === 0) return undefined;
  return {
    role: m.role,
    parts: m.parts,
    messageId: m.messageId ?? '',
    ...(m.taskId !== undefined && { taskId: m.taskId }),
    ...(m.contextId !== undefined && { contextId: m.contextId }),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...extensionsOf(m),
    ...referencesOf(m),
  };
}

function toStatus(s: z.infer<typeof RemoteStatus>, ctx: DecodeContext): TaskStatus {
  const message = toMessage(s.message);
  return { state: s.state, ...(message && { message }), timestamp: s.timestamp ?? ctx.receivedAt };
}

/** Rev A names an artifact by its index, rev B by its artifactId: the internal model keeps both. */
function toArtifact(a: RemoteArtifact, position: number): Artifact {
  const index = a.index ?? position;
  return {
    artifactId: a.artifactId ?? `artifact-${index}`,
    index,
    parts: a.parts,
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    ...(a.append !== undefined && { append: a.append }),
    ...(a.lastChunk !== undefined && { lastChunk: a.lastChunk }),
    ...(a.metadata !== undefined && { metadata: a.metadata }),
    ...extensionsOf(a),
  };
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A 0.2/0.3 agent may answer a send with a bare Message: the exchange is then over, a completed task of one message. */
function messageAsTask(v: unknown, ctx: DecodeContext, what: string): RemoteTask {
  const m = parse(RemoteMessage, v, what);
  const message = toMessage(m);
  return {
    id: m.taskId ?? ctx.taskId ?? m.messageId ?? '',
    ...(m.contextId !== undefined && { contextId: m.contextId }),
    status: { state: 'completed', ...(message && { message }), timestamp: ctx.receivedAt },
    artifacts: [],
  };
}

/** A send's, get's or cancel's result: a Task of either dialect (or a rev B Message), in the internal model. */
export function decodeRemoteTask(v: unknown, ctx: DecodeContext, what = 'result'): RemoteTask {
  if (isObject(v) && v.kind === 'message') return messageAsTask(v, ctx, what);
  const t = parse(RemoteTaskShape, v, what);
  const contextId = t.contextId ?? t.sessionId;
  return {
    id: t.id,
    ...(contextId !== undefined && { contextId }),
    status: toStatus(t.status, ctx),
    artifacts: (t.artifacts ?? []).map(toArtifact),
    ...(t.history !== undefined && { history: t.history.flatMap((m) => toMessage(m) ?? []) }),
    ...(t.metadata !== undefined && { metadata: t.metadata }),
  };
}

/**
 * One event of a remote stream, either dialect: rev B's `kind` says what it is (task, message, status-update,
 * artifact-update); rev A's 0.1 events have none, so the shape tells: an `artifact` is an artifact event, a `status`
 * with `final` a status event, any other `status` a whole task.
 */
export function decodeRemoteEvent(v: unknown, ctx: DecodeContext, what = 'result'): RemoteEvent {
  if (!isObject(v)) throw new RemoteDecodeError(`${what}: expected an object`);
  const kind = v.kind;
  if (kind === 'task' || kind === 'message') return { kind: 'task', task: decodeRemoteTask(v, ctx, what) };
  if (kind === 'artifact-update' || (kind === undefined && 'artifact' in v)) {
    const e = parse(ArtifactEvent, v, what);
    const artifact = toArtifact(
      { ...e.artifact, ...(e.append !== undefined && { append: e.append }), ...(e.lastChunk !== undefined && { lastChunk: e.lastChunk }) },
      0,
    );
    return { kind: 'artifact', taskId: e.taskId ?? e.id ?? '', ...(e.contextId && { contextId: e.contextId }), artifact };
  }
  if (kind === 'status-update' || (kind === undefined && 'status' in v && 'final' in v)) {
    const e = parse(StatusEvent, v, what);
    const status = toStatus(e.status, ctx);
    return {
      kind: 'status',
      taskId: e.taskId ?? e.id ?? '',
      ...(e.contextId && { contextId: e.contextId }),
      status,
      final: e.final ?? SETTLED_STATES.has(status.state),
    };
  }
  if (kind === undefined && 'status' in v) return { kind: 'task', task: decodeRemoteTask(v, ctx, what) };
  throw new RemoteDecodeError(`${what}: not a task, message, status or artifact event${typeof kind === 'string' ? ` (kind '${kind}')` : ''}`);
}

/**
 * A remote task as a stream's events build it: a status replaces the status, an artifact chunk with `append` extends
 * the artifact of its id, any other artifact replaces it (or is added), a whole task replaces the task (its artifacts
 * only when it has some).
 *
 * Linear in the events: a chunk is appended in place to a parts list the fold made itself (never to one an event
 * brought, which its listeners hold), and artifacts are found by id in a map. Copying the lists on every event made a
 * remote's 40,000 one-character chunks cost 10 s of CPU. `task` is the fold's own: the next `apply` may change it.
 * `weight` says how big the folded artifacts have grown, so that a stream without end can be stopped.
 */
export class RemoteTaskFold {
  #task: RemoteTask;
  /** artifactId -> position in #task.artifacts (the first artifact of an id, as a lookup by id finds) */
  readonly #at = new Map<string, number>();
  /** the arrays this fold made, which it may append to */
  readonly #own = new WeakSet<object>();
  /** what each artifact's events weighed (bytes as received); '' holds a whole task's artifacts */
  readonly #weights = new Map<string, number>();
  #weight = 0;

  constructor(start: RemoteTask) {
    this.#task = start;
    this.#index();
  }

  get task(): RemoteTask {
    return this.#task;
  }

  /**
   * What the task's artifacts weigh, at most: the sizes of the events that brought what they hold (an appended chunk
   * adds its event's, a replaced artifact counts its last event's). A bound for what a stream may pile up.
   */
  get weight(): number {
    return this.#weight;
  }

  /** `bytes`: the size of the event as received, for `weight`. */
  apply(ev: RemoteEvent, bytes = 0): RemoteTask {
    if (ev.kind === 'task') {
      const replaced = ev.task.artifacts.length > 0;
      this.#task = { ...ev.task, artifacts: replaced ? ev.task.artifacts : this.#task.artifacts };
      if (replaced) {
        this.#index();
        this.#weights.clear();
        this.#weight = 0;
        this.#weigh('', bytes, false);
      }
    } else if (ev.kind === 'status') this.#task = { ...this.#task, status: ev.status };
    else {
      this.#weigh(ev.artifact.artifactId, bytes, ev.artifact.append === true);
      this.#task = { ...this.#task, artifacts: this.#withArtifact(ev.artifact) };
    }
    return this.#task;
  }

  #weigh(id: string, bytes: number, append: boolean): void {
    const before = this.#weights.get(id) ?? 0;
    const after = append ? before + bytes : bytes;
    this.#weights.set(id, after);
    this.#weight += after - before;
  }

  #index(): void {
    this.#at.clear();
    this.#task.artifacts.forEach((a, i) => {
      if (!this.#at.has(a.artifactId)) this.#at.set(a.artifactId, i);
    });
  }

  #owned<T>(list: T[]): T[] {
    if (this.#own.has(list)) return list;
    const copy = [...list];
    this.#own.add(copy);
    return copy;
  }

  #withArtifact(artifact: Artifact): Artifact[] {
    // the folded artifact is whole: `append` described the chunk, not it
    const { append, ...chunk } = artifact;
    const artifacts = this.#owned(this.#task.artifacts);
    const at = this.#at.get(chunk.artifactId);
    if (at === undefined) {
      this.#at.set(chunk.artifactId, artifacts.length);
      artifacts.push({ ...chunk, index: artifacts.length });
      return artifacts;
    }
    const prev = artifacts[at]!;
    let parts = chunk.parts;
    if (append) {
      parts = this.#owned(prev.parts);
      for (const p of chunk.parts) parts.push(p);
    }
    artifacts[at] = { ...prev, ...chunk, parts, index: prev.index };
    return artifacts;
  }
}
