// What an agent run yields and returns across the worker boundary: plain, zod-checked data only.
import { z } from 'zod';
import { ArtifactDescription, ArtifactName } from './artifact-text.js';
import { ConnectionName } from './connections.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import {
  Artifact,
  BoundedId,
  CallerId,
  DataPart,
  Extensions,
  FileBytesIn,
  FileContentBounded,
  FilePart,
  FileUriIn,
  MAX_ID_LENGTH,
  Message,
  Metadata,
  TextPart,
} from './model.js';

/**
 * A part as an agent emits it (module and builtin agents on the pool, a relay's local agent over its tunnel) or sends
 * out (a module agent's `ctx.call`): what it says is stored and served, or reaches a remote as our gateway's word, so a
 * file's name and type are bounded as a caller's and a remote's are (a text or data part's 1.0 `filename` and
 * `mediaType` are bounded in the model itself).
 */
const AgentPart = z.discriminatedUnion('kind', [TextPart, FilePart.extend({ file: FileContentBounded }), DataPart]);

/** An agent's message: the task's ids and the role are the gateway's to set; the extensions it used are the agent's to say. */
const AgentMessage = z.object({ parts: z.array(AgentPart).min(1), metadata: Metadata.optional(), extensions: Extensions.optional() });

/**
 * An event yielded by an agent's async generator. Parts are the internal model (`kind`). An artifact's name and
 * description are cut to ARTIFACT_TEXT, as a remote agent's are (words for people); its id is refused past
 * MAX_ID_LENGTH, as a remote's and a caller's are (it is stored, shown on every read and sent to webhooks). Read here,
 * so a module agent's (in its worker and again on the main thread) and a relay's (its frames) agree.
 */
export const AgentEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('status'),
    state: z.enum(['working', 'input-required', 'completed', 'failed']),
    message: AgentMessage.optional(),
  }),
  z.object({
    type: z.literal('artifact'),
    artifact: Artifact.extend({
      artifactId: BoundedId,
      parts: z.array(AgentPart),
      name: ArtifactName.optional(),
      description: ArtifactDescription.optional(),
    }).partial({
      artifactId: true,
      index: true,
    }),
  }),
  z.object({ type: z.literal('message'), message: AgentMessage }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

/**
 * What of an event stays in its task: an artifact chunk, a message, a closing status's message (both join the
 * history). A `working` status is replaced by the next one, so nothing of it lasts. One rule for the worker's
 * output budget and the run driver's task size.
 */
export function lastingContent(ev: AgentEvent): unknown {
  if (ev.type === 'artifact') return ev.artifact;
  if (ev.type === 'message') return ev.message;
  return ev.state === 'working' ? undefined : ev.message;
}

/** `relay`: announced by a relay over its tunnel, never configured and never run on the worker pool. */
export const AgentKind = z.enum(['builtin', 'module', 'remote', 'relay']);

export const AgentSkill = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
  tags: z.array(z.string()).optional(),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkill>;

/** An agent's id: it names URLs and tasks, and a key's `agents` list names agents by it. */
export const AgentId = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH, `at most ${MAX_ID_LENGTH} characters`)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore');

/** An agent as configured: `workspace: '*'` serves every workspace. */
export const AgentSpec = z.object({
  id: AgentId,
  name: z.string().min(1),
  description: z.string().default(''),
  kind: AgentKind.default('builtin'),
  /** builtin: the demo agent's name (echo, converse, slow); module: a path to a JS file. */
  entry: z.string().optional(),
  /** remote: the outbound connection its tasks are forwarded over (in the agent's workspace; a shared agent uses the caller's) */
  connection: z.string().min(1).optional(),
  workspace: z.string().min(1).default('*'),
  listed: z.boolean().default(true),
  default: z.boolean().default(false),
  skills: z.array(AgentSkill).default([]),
  /** per-run deadline in ms; a run past it fails its task with reason `timeout`. */
  timeoutMs: z.number().int().positive().default(300_000),
  options: Metadata.default({}),
  /**
   * module agents only: may start child processes (`child_process`). Off unless set: a child process is outside every
   * guard of the agent's worker and can signal the gateway's own process.
   */
  childProcesses: z.boolean().optional(),
});
export type AgentSpec = z.infer<typeof AgentSpec>;

/** What a worker needs of an agent to run it; the rest of the spec (card, skills) is not copied to it per turn. */
export const AgentRef = AgentSpec.pick({ id: true, kind: true, entry: true, timeoutMs: true, options: true, childProcesses: true });
export type AgentRef = z.infer<typeof AgentRef>;

/** What the gateway hands a worker for one turn of a task. */
export const AgentRunInput = z.object({
  agent: AgentRef,
  task: z.object({
    id: z.string(),
    contextId: z.string(),
    history: z.array(Message),
    artifacts: z.array(Artifact),
    metadata: Metadata,
  }),
  message: Message,
});
export type AgentRunInput = z.infer<typeof AgentRunInput>;

/** A worker's answer: errors cross the thread boundary as data, never as thrown Errors. */
export const AgentRunResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), events: z.number().int().nonnegative() }),
  z.object({ ok: z.literal(false), error: z.object({ reason: z.string(), message: z.string() }) }),
]);
export type AgentRunResult = z.infer<typeof AgentRunResult>;

/**
 * A module agent's `ctx.call` as the worker posts it to the main thread, where it is checked (the agent is untrusted).
 * A string message has already become one text part. `taskId`/`contextId` continue a remote task (a follow-up to
 * its `input-required`); `extensions` are the URIs of the A2A extensions the message uses, sent to the remote.
 */
export const AgentCall = z
  .object({
    connection: ConnectionName,
    message: z
      .object({
        parts: z.array(AgentPart).min(1),
        metadata: Metadata.optional(),
        extensions: Extensions.optional(),
        taskId: CallerId.optional(),
        contextId: CallerId.optional(),
      })
      .strict(),
    stream: z.boolean(),
  })
  .strict();
export type AgentCall = z.infer<typeof AgentCall>;

/** How deep a call's message may nest: a data part's data as deep as accepted params, inside message, parts, part. */
export const MAX_CALL_MESSAGE_DEPTH = MAX_JSON_DEPTH + 3;

/**
 * A module agent's file is a file, as a caller's must be: one of base64 `bytes` or an absolute `uri`. What is stored
 * is served to every caller as a FileWithBytes or FileWithUri; a file with neither read back as a part with no
 * content, and bytes that are not base64 broke the caller's decoding, not the agent's turn. Not part of AgentEvent:
 * a relay's frames are read with that schema, and one bad part there would close the whole tunnel.
 */
const AgentFile = FileContentBounded.extend({ bytes: FileBytesIn.optional(), uri: FileUriIn.optional() }).refine(
  (f) => (f.bytes === undefined) !== (f.uri === undefined),
  'a file has one of bytes or uri',
);

/** The first file part of a (parsed) event that is not a file: its path and why; undefined when there is none. */
export function badFileAt(ev: AgentEvent): string | undefined {
  const [where, parts] = ev.type === 'artifact' ? ['artifact', ev.artifact.parts] : ['message', ev.message?.parts ?? []];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.kind !== 'file') continue;
    const r = AgentFile.safeParse(part.file);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      return `${[where, 'parts', i, 'file', ...issue.path].map(String).join('.')}: ${issue.message}`;
    }
  }
  return undefined;
}
