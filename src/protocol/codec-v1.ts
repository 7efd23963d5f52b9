// A2A 1.0 wire shapes (proto-JSON, no `kind`): parts are `text`, `raw`, `url` or `data` with `mediaType` and `filename`,
// enums read TASK_STATE_* and ROLE_*, a send answers `{task}`, stream events are `{task|statusUpdate|artifactUpdate}`.
// Both ways: the params a 1.0 caller sends are read into the internal model, results are written from it.
import { z } from 'zod';
import type { TaskEvent } from './events.js';
import { maskedPushSecrets, publicMetadata } from './internal-fields.js';
import {
  Extensions,
  CallerId as Id,
  extensionsOf,
  keptPartFieldsOf,
  referencesOf,
  FileBytesIn,
  FileUriIn,
  Filename,
  MediaTypeIn,
  Metadata,
  ReferenceTaskIds,
  type Artifact,
  type Message,
  type Part,
  type Task,
  type TaskState,
  type TaskStatus,
} from './model.js';
import { ListPageToken } from './list-token.js';
import { IsoTime, listQuery, PageSize, PageToken, parseParams, type SendParams } from './params.js';
import { HeaderValue, PushScheme, PushUrl, type PushConfig, type StoredPushConfig } from './records.js';
import type { TaskView } from './views.js';
import { STATE_V1 } from './states-v1.js';

// ---------------------------------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------------------------------

// the table lives in a leaf module: the error catalogue reads it too (a 1.0 ErrorInfo names a task's state)
export { STATE_V1 };

/** Every 1.0 state a caller may name (a filter); the gateway's tasks are never rejected or auth-required. */
export const StateV1 = z.enum([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
]);
export type StateV1 = z.infer<typeof StateV1>;

/** The internal state a 1.0 state names (undefined: one the gateway never holds). */
export const stateFromV1 = (s: StateV1): TaskState | undefined => (Object.keys(STATE_V1) as TaskState[]).find((k) => STATE_V1[k] === s);

const ROLE_V1 = { user: 'ROLE_USER', agent: 'ROLE_AGENT' } as const;

// ---------------------------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------------------------

export function encodePartV1(p: Part) {
  const meta = p.metadata !== undefined ? { metadata: p.metadata } : {};
  const kept = p.kind !== 'file' ? keptPartFieldsOf(p) : {};
  if (p.kind === 'text') return { text: p.text, ...kept, ...meta };
  if (p.kind === 'data') return { data: p.data, ...kept, ...meta };
  const f = p.file;
  // a file without results.files keeps its name and media type, and no content
  return {
    ...(f.bytes !== undefined ? { raw: f.bytes } : f.uri !== undefined ? { url: f.uri } : {}),
    ...(f.mimeType !== undefined && { mediaType: f.mimeType }),
    ...(f.name !== undefined && { filename: f.name }),
    ...meta,
  };
}

export function encodeMessageV1(m: Message) {
  return {
    messageId: m.messageId,
    ...(m.contextId !== undefined && { contextId: m.contextId }),
    ...(m.taskId !== undefined && { taskId: m.taskId }),
    role: ROLE_V1[m.role],
    parts: m.parts.map(encodePartV1),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...extensionsOf(m),
    ...referencesOf(m),
  };
}

export function encodeArtifactV1(a: Artifact) {
  return {
    artifactId: a.artifactId,
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    parts: a.parts.map(encodePartV1),
    ...(a.metadata !== undefined && { metadata: a.metadata }),
    ...extensionsOf(a),
  };
}

export function encodeStatusV1(s: TaskStatus) {
  return { state: STATE_V1[s.state], ...(s.message && { message: encodeMessageV1(s.message) }), timestamp: s.timestamp };
}

export function encodeTaskV1(v: TaskView) {
  const t = v.task;
  return {
    id: t.id,
    contextId: t.contextId,
    status: encodeStatusV1(t.status),
    artifacts: v.artifacts.map(encodeArtifactV1),
    // 1.0 (3.2.4): historyLength 0 SHOULD leave `history` out, as proto-JSON leaves out any empty list
    ...(v.history !== undefined && v.history.length > 0 && { history: v.history.map(encodeMessageV1) }),
    metadata: publicMetadata(t.metadata),
  };
}

/** 1.0 has no `final`: a stream ends after a terminal or interrupted status, which the reader sees in the state. */
export function encodeEventV1(task: Pick<Task, 'id' | 'contextId'>, ev: TaskEvent) {
  if (ev.kind === 'status') return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: encodeStatusV1(ev.status) } };
  return {
    artifactUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      artifact: encodeArtifactV1(ev.artifact),
      append: ev.append,
      lastChunk: ev.lastChunk,
    },
  };
}

/** 1.0 authentication names one scheme; the gateway keeps a list (rev B's shape) and writes its first. */
export function encodePushConfigV1(c: StoredPushConfig, taskId: string) {
  const masked = maskedPushSecrets(c);
  return {
    id: c.id,
    taskId,
    url: masked.url,
    ...(masked.token !== undefined && { token: masked.token }),
    ...(masked.authentication !== undefined && {
      authentication: {
        scheme: masked.authentication.schemes[0] ?? '',
        ...(masked.authentication.credentials !== undefined && { credentials: masked.authentication.credentials }),
      },
    }),
  };
}

export const v1Codec = {
  send: { messageIdRequired: true, callerNamesNewTask: false, inlinePushUrlPath: 'params.configuration.taskPushNotificationConfig.url' },
  subscribe: { refusesTerminal: true },
  task: encodeTaskV1,
  /** 1.0 (3.1.4): without includeArtifacts the field MUST be omitted, "not present as an empty array" */
  listedTask: (v: TaskView, withArtifacts: boolean) => {
    if (withArtifacts) return encodeTaskV1(v);
    const { artifacts: _omitted, ...rest } = encodeTaskV1({ ...v, artifacts: [] });
    return rest;
  },
  sendResult: (v: TaskView) => ({ task: encodeTaskV1(v) }),
  pushBody: (v: TaskView) => ({ task: encodeTaskV1(v) }),
  event: encodeEventV1,
  openingEvents: (v: TaskView, _settled: boolean) => [{ task: encodeTaskV1(v) }],
  pushConfig: encodePushConfigV1,
  pushConfigs: (cs: readonly StoredPushConfig[], taskId: string, nextPageToken: string) => ({
    configs: cs.map((c) => encodePushConfigV1(c, taskId)),
    nextPageToken,
  }),
};

// ---------------------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------------------

/** The optional tenant every 1.0 request may carry: the key, not the tenant, decides the workspace (it is ignored). */
const Tenant = z.string().optional();

const CONTENT = ['text', 'raw', 'url', 'data'] as const;

export const PartV1 = z
  .object({
    text: z.string().optional(),
    /** base64 bytes */
    raw: FileBytesIn.optional(),
    url: FileUriIn.optional(),
    data: Metadata.optional(),
    mediaType: MediaTypeIn.optional(),
    filename: Filename.optional(),
    metadata: Metadata.optional(),
  })
  .superRefine((p, ctx) => {
    const set = CONTENT.filter((k) => p[k] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: set.length === 0 ? 'a part needs one of text, raw, url or data' : `a part has one of text, raw, url or data, not ${set.join(' and ')}`,
      });
    }
  });
export type PartV1 = z.infer<typeof PartV1>;

export const RoleV1 = z.enum(['ROLE_USER', 'ROLE_AGENT']);

export const MessageV1 = z.object({
  messageId: Id,
  contextId: Id.optional(),
  taskId: Id.optional(),
  role: RoleV1,
  parts: z.array(PartV1).min(1, 'must be a non-empty list'),
  metadata: Metadata.optional(),
  extensions: Extensions.optional(),
  referenceTaskIds: ReferenceTaskIds.optional(),
});

export const AuthenticationV1 = z.object({ scheme: PushScheme.min(1), credentials: HeaderValue.optional() });

export const PushConfigV1 = z.object({
  tenant: Tenant,
  id: Id.optional(),
  taskId: Id.optional(),
  url: PushUrl,
  token: HeaderValue.optional(),
  authentication: AuthenticationV1.optional(),
});

const HistoryLength = z.number().int().nonnegative();

export const SendParamsV1 = z.object({
  tenant: Tenant,
  message: MessageV1,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      taskPushNotificationConfig: PushConfigV1.optional(),
      historyLength: HistoryLength.optional(),
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});

export const GetTaskParamsV1 = z.object({ tenant: Tenant, id: Id, historyLength: HistoryLength.optional() });
export const TaskIdParamsV1 = z.object({ tenant: Tenant, id: Id, metadata: Metadata.optional() });
export const PushCreateParamsV1 = PushConfigV1.extend({ taskId: Id });
export const PushRefParamsV1 = z.object({ tenant: Tenant, taskId: Id, id: Id });
const PAGE_TOKEN_TEXT = 'must be a page token this gateway gave out (a string)';

export const ListTasksParamsV1 = z.object({
  tenant: Tenant,
  // proto-JSON writes an unset string as absent, but a hand-written call may send ''
  // a union's own failure reads "Invalid input": each says what it takes instead
  contextId: z.union([Id, z.literal('')], { error: 'must be a context id (a string)' }).optional(),
  status: z.union([StateV1, z.literal('TASK_STATE_UNSPECIFIED')], { error: `must be a TaskState name: ${StateV1.options.join(', ')}` }).optional(),
  pageSize: PageSize.optional(),
  pageToken: ListPageToken.optional(),
  historyLength: HistoryLength.optional(),
  statusTimestampAfter: IsoTime.optional(),
  includeArtifacts: z.boolean().optional(),
});

/** GetExtendedAgentCard's params: only the tenant (absent params read as none) */
export const ExtendedCardParamsV1 = z.object({ tenant: Tenant });

/** proto3's `int32 page_size` (not optional): 0 is unset, every config; the token is the offset this gateway gave out */
export const PushListParamsV1 = z.object({
  tenant: Tenant,
  taskId: Id,
  pageSize: z.number().int().nonnegative().optional(),
  pageToken: z.union([PageToken, z.literal('')], { error: PAGE_TOKEN_TEXT }).optional(),
});

/** A 1.0 file part (`raw` bytes or a `url`) in the internal model's form (inbound and from remotes alike). */
export function fileFromV1(p: { raw?: string | undefined; url?: string | undefined; filename?: string | undefined; mediaType?: string | undefined }) {
  return {
    ...(p.filename !== undefined && { name: p.filename }),
    ...(p.mediaType !== undefined && { mimeType: p.mediaType }),
    ...(p.raw !== undefined ? { bytes: p.raw } : { uri: p.url }),
  };
}

export function partFromV1(p: PartV1): Part {
  const meta = p.metadata !== undefined ? { metadata: p.metadata } : {};
  // proto-JSON writes an unset string as absent; a hand-written '' means the same
  const kept = keptPartFieldsOf(p);
  if (p.text !== undefined) return { kind: 'text', text: p.text, ...kept, ...meta };
  if (p.data !== undefined) return { kind: 'data', data: p.data, ...kept, ...meta };
  return { kind: 'file', file: fileFromV1(p), ...meta };
}

export function pushConfigFromV1(c: z.infer<typeof PushConfigV1>): PushConfig {
  return {
    ...(c.id !== undefined && { id: c.id }),
    url: c.url,
    ...(c.token !== undefined && { token: c.token }),
    ...(c.authentication !== undefined && {
      authentication: {
        schemes: [c.authentication.scheme],
        ...(c.authentication.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}

/** A 1.0 SendMessage's params as the internal send: `returnImmediately` is the inverse of rev B's `blocking`. */
export function sendFromV1(params: unknown): SendParams {
  const p = parseParams(SendParamsV1, params);
  const m = p.message;
  const c = p.configuration;
  return {
    message: {
      role: m.role === 'ROLE_USER' ? 'user' : 'agent',
      parts: m.parts.map(partFromV1),
      messageId: m.messageId,
      ...(m.taskId !== undefined && { taskId: m.taskId }),
      ...(m.contextId !== undefined && { contextId: m.contextId }),
      ...(m.metadata !== undefined && { metadata: m.metadata }),
      ...extensionsOf(m),
      ...referencesOf(m),
    },
    ...(c !== undefined && {
      configuration: {
        blocking: c.returnImmediately !== true,
        ...(c.historyLength !== undefined && { historyLength: c.historyLength }),
        ...(c.acceptedOutputModes !== undefined && { acceptedOutputModes: c.acceptedOutputModes }),
        ...(c.taskPushNotificationConfig !== undefined && { pushNotificationConfig: pushConfigFromV1(c.taskPushNotificationConfig) }),
      },
    }),
    ...(p.metadata !== undefined && { metadata: p.metadata }),
  };
}

export const readsV1 = {
  listTasks: (params: unknown) => {
    const p = parseParams(ListTasksParamsV1, params ?? {});
    const any = p.status === undefined || p.status === 'TASK_STATE_UNSPECIFIED';
    const state = any ? undefined : stateFromV1(p.status as StateV1);
    return listQuery({ ...p, states: any ? undefined : state === undefined ? [] : [state] });
  },
  send: sendFromV1,
  taskQuery: (params: unknown) => {
    const p = parseParams(GetTaskParamsV1, params);
    return { id: p.id, ...(p.historyLength !== undefined && { historyLength: p.historyLength }) };
  },
  taskId: (params: unknown) => ({ id: parseParams(TaskIdParamsV1, params).id }),
  pushSet: (params: unknown) => {
    const p = parseParams(PushCreateParamsV1, params);
    return { taskId: p.taskId, config: pushConfigFromV1(p), urlPath: 'params.url' };
  },
  pushGet: (params: unknown) => {
    const p = parseParams(PushRefParamsV1, params);
    return { taskId: p.taskId, configId: p.id };
  },
  pushList: (params: unknown) => {
    const p = parseParams(PushListParamsV1, params);
    return { taskId: p.taskId, page: { size: p.pageSize ?? 0, offset: p.pageToken ? Number(p.pageToken) : 0 } };
  },
  pushDelete: (params: unknown) => {
    const p = parseParams(PushRefParamsV1, params);
    return { taskId: p.taskId, configId: p.id };
  },
};
