// The one internal model of A2A objects (parts, messages, artifacts, tasks) that every dialect codec maps to and from.
import { z } from 'zod';

export const TaskState = z.enum(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed']);
export type TaskState = z.infer<typeof TaskState>;

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'canceled', 'failed']);
/** States after which a send call returns: terminal ones and the interrupted `input-required`. */
export const SETTLED_STATES: ReadonlySet<TaskState> = new Set(['completed', 'canceled', 'failed', 'input-required']);

export const Metadata = z.record(z.string(), z.unknown());

/**
 * The longest id a caller may send (task, context, session, message and push config ids): ids become store keys, and a
 * key past the store's limit (LMDB's is about 1,970 bytes) would fail the write instead of being refused up front.
 */
export const MAX_ID_LENGTH = 256;
export const CallerId = z.string().min(1).max(MAX_ID_LENGTH, `at most ${MAX_ID_LENGTH} characters`);
/**
 * An id the gateway keeps that someone else chose: a remote's answer names it (a task's, a context's, a message's, an
 * artifact's), or one of our own module or relay agents does (an artifact's). Bounded as a caller's are: the client
 * sends a remote's back (a follow-up, a poll, a cancel), and an artifact's is stored, shown on every read and sent to
 * webhooks; only the answer's size or the task's bounded it before. '' is read: a finished task may name none.
 */
export const BoundedId = z.string().max(MAX_ID_LENGTH, `at most ${MAX_ID_LENGTH} characters`);
export type Metadata = z.infer<typeof Metadata>;

/**
 * Bounds on the lists a message or artifact carries beside its parts (a caller's are read against them, so one cannot
 * send a million extension URIs): generous for any real use, small enough that a task record stays a record.
 */
export const MAX_EXTENSIONS = 64;
export const MAX_EXTENSION_URI_LENGTH = 2048;
export const MAX_REFERENCE_TASK_IDS = 64;
/** A media type is `type/subtype` plus parameters; RFC 6838 caps each name at 127 characters. */
export const MAX_MEDIA_TYPE_LENGTH = 256;
/** A file's name, not a path: file systems cap a name at 255 bytes; room is left for a name in a multi-byte script. */
export const MAX_FILENAME_LENGTH = 1024;

/** The URIs of the A2A extensions a message or artifact carries (0.3 and 1.0 both name the field `extensions`). */
export const Extensions = z
  .array(z.string().max(MAX_EXTENSION_URI_LENGTH, `at most ${MAX_EXTENSION_URI_LENGTH} characters`))
  .max(MAX_EXTENSIONS, `at most ${MAX_EXTENSIONS} extensions`);
/** The tasks a message refers to as its context (0.3 and 1.0 `referenceTaskIds`). */
export const ReferenceTaskIds = z.array(CallerId).max(MAX_REFERENCE_TASK_IDS, `at most ${MAX_REFERENCE_TASK_IDS} task ids`);
export const MediaType = z.string().max(MAX_MEDIA_TYPE_LENGTH, `at most ${MAX_MEDIA_TYPE_LENGTH} characters`);
export const Filename = z.string().max(MAX_FILENAME_LENGTH, `at most ${MAX_FILENAME_LENGTH} characters`);

/**
 * A media type as a caller writes it: `type/subtype` (RFC 6838 names), parameters allowed; '' is unset (proto-JSON's
 * default). Read only from callers: a remote's or an agent's is bounded in length but read as it is.
 */
const MEDIA_TYPE = /^(?:[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:\s*;[^\r\n]*)?)?$/;
export const MediaTypeIn = MediaType.regex(MEDIA_TYPE, 'must be a media type such as text/plain');

/** A text or data part's 1.0 `mediaType` and `filename`, as an object to spread (proto-JSON's unset '' is absent). */
export const keptPartFieldsOf = (p: { mediaType?: string | undefined; filename?: string | undefined }) => ({
  ...(p.mediaType ? { mediaType: p.mediaType } : {}),
  ...(p.filename ? { filename: p.filename } : {}),
});

/** A message's or artifact's `extensions`, as an object to spread: absent stays absent. */
export const extensionsOf = (x: { extensions?: string[] | undefined }) => (x.extensions !== undefined ? { extensions: x.extensions } : {});
/** A message's `referenceTaskIds`, as an object to spread: absent stays absent. */
export const referencesOf = (x: { referenceTaskIds?: string[] | undefined }) =>
  x.referenceTaskIds !== undefined ? { referenceTaskIds: x.referenceTaskIds } : {};

/**
 * `mediaType` and `filename` on a text or data part are A2A 1.0's (every 1.0 part may carry them); 0.3's TextPart and
 * DataPart have no such fields, so the 0.x codecs neither read nor write them. A file part's are its `file.mimeType`
 * and `file.name`.
 */
export const TextPart = z.object({
  kind: z.literal('text'),
  text: z.string(),
  mediaType: MediaType.optional(),
  filename: Filename.optional(),
  metadata: Metadata.optional(),
});
export const FileContent = z.object({
  name: z.string().optional(),
  mimeType: z.string().optional(),
  bytes: z.string().optional(),
  uri: z.string().optional(),
});
export const FilePart = z.object({ kind: z.literal('file'), file: FileContent, metadata: Metadata.optional() });
/**
 * A file's name and type as they come in (from callers and remotes), bounded like a 1.0 part's `filename` and
 * `mediaType`. The stored model stays unbounded: records kept before the bound must still read.
 */
export const FileContentBounded = FileContent.extend({ name: Filename.optional(), mimeType: MediaType.optional() });

/**
 * A caller's file content: base64 (either alphabet, padding optional, as clients write it) and an absolute URI. Read
 * only from callers: what is stored and what agents and remotes send is read as it is.
 */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
export const FileBytesIn = z.string().refine((s) => BASE64.test(s) && s.replace(/=+$/, '').length % 4 !== 1, 'must be base64');
export const FileUriIn = z.string().refine((s) => URL.canParse(s), 'must be an absolute URI');

/** 0.x's FileWithBytes or FileWithUri: exactly one of the two. */
export const FileContentIn = FileContentBounded.extend({ mimeType: MediaTypeIn.optional(), bytes: FileBytesIn.optional(), uri: FileUriIn.optional() }).refine(
  (f) => (f.bytes === undefined) !== (f.uri === undefined),
  'a file has one of bytes or uri',
);
export const DataPart = z.object({
  kind: z.literal('data'),
  data: Metadata,
  mediaType: MediaType.optional(),
  filename: Filename.optional(),
  metadata: Metadata.optional(),
});
export const Part = z.discriminatedUnion('kind', [TextPart, FilePart, DataPart]);
export type Part = z.infer<typeof Part>;

export const Role = z.enum(['user', 'agent']);
export const Message = z.object({
  role: Role,
  parts: z.array(Part).min(1),
  messageId: z.string(),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  metadata: Metadata.optional(),
  extensions: Extensions.optional(),
  referenceTaskIds: ReferenceTaskIds.optional(),
});
export type Message = z.infer<typeof Message>;

export const Artifact = z.object({
  artifactId: z.string(),
  index: z.number().int().nonnegative(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(Part),
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: Metadata.optional(),
  extensions: Extensions.optional(),
});
export type Artifact = z.infer<typeof Artifact>;

export const TaskStatus = z.object({
  state: TaskState,
  message: Message.optional(),
  timestamp: z.string(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

/** The dialects, served and spoken to remote agents: rev A (A2A 0.1), rev B (0.2/0.3) and A2A 1.0. */
export const Dialect = z.enum(['A', 'B', 'V1']);
export type Dialect = z.infer<typeof Dialect>;

/** The dialect a task was created in (any served dialect). */
export const TaskDialect = Dialect;
export type TaskDialect = Dialect;

/** A task as the gateway keeps it. `metadata` may hold internal fields; the sanitizer strips them at the exit. */
export const Task = z.object({
  id: z.string(),
  contextId: z.string(),
  workspaceId: z.string(),
  agentId: z.string(),
  dialect: TaskDialect,
  status: TaskStatus,
  artifacts: z.array(Artifact),
  history: z.array(Message),
  metadata: Metadata,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** the gateway instance that last ran the task (start-up recovery touches only its own) */
  owner: z.string().optional(),
  /** the sequence number of the last event that describes this record (streams resume after it) */
  seq: z.number().int().nonnegative().optional(),
});
export type Task = z.infer<typeof Task>;
