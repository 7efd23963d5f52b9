// Method params as callers send them (read leniently: parts by `type` or `kind`), parsed with zod; errors name the field.
import { z } from 'zod';
import { RpcError } from './errors.js';
import { jsonProblemAt, MAX_JSON_DEPTH, tooDeepAt, type JsonProblem } from './json-depth.js';
import { shownPath } from './one-line.js';
import {
  DataPart,
  Extensions,
  FileContentBounded,
  FileContentIn,
  FilePart,
  CallerId as Id,
  Metadata,
  ReferenceTaskIds,
  Role,
  TaskState,
  TextPart,
} from './model.js';
import { PushConfig } from './records.js';
import { rfc3339Ms } from './rfc3339.js';
import { ListPageToken, type ListCursor } from './list-token.js';

/** Rev A parts say `type`, rev B parts say `kind`: accept either, keep `kind` inside. */
function normalizePart(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  if (o.kind === undefined && o.type !== undefined) {
    const { type, ...rest } = o;
    return { ...rest, kind: type };
  }
  if (o.type !== undefined) {
    const { type: _ignored, ...rest } = o;
    return rest;
  }
  return v;
}

/** 0.1-0.3 parts: their text and data parts have no `mediaType` or `filename` (1.0's), so one sent anyway is not read. */
const V1_ONLY = { mediaType: true, filename: true } as const;
const PartRevs = z.discriminatedUnion('kind', [TextPart.omit(V1_ONLY), FilePart.extend({ file: FileContentBounded }), DataPart.omit(V1_ONLY)]);

/** A 0.x part as a remote agent answers it: read as it comes. */
export const PartIn = z.preprocess(normalizePart, PartRevs);

/** A 0.x part as a caller sends it: a file part holds base64 bytes or an absolute URI, exactly one. */
const CallerPartIn = z.preprocess(
  normalizePart,
  z.discriminatedUnion('kind', [TextPart.omit(V1_ONLY), FilePart.extend({ file: FileContentIn }), DataPart.omit(V1_ONLY)]),
);

export const MessageIn = z.object({
  kind: z.literal('message').optional(),
  role: Role,
  parts: z.array(CallerPartIn).min(1, 'must be a non-empty list'),
  messageId: Id.optional(),
  taskId: Id.optional(),
  contextId: Id.optional(),
  metadata: Metadata.optional(),
  extensions: Extensions.optional(),
  referenceTaskIds: ReferenceTaskIds.optional(),
});
export type MessageIn = z.infer<typeof MessageIn>;

const HistoryLength = z.number().int().nonnegative();

export const SendParams = z.object({
  /** rev A: the (client-chosen) task id; continues that task when it exists */
  id: Id.optional(),
  sessionId: Id.optional(),
  message: MessageIn,
  historyLength: HistoryLength.optional(),
  /** rev A inline push config */
  pushNotification: PushConfig.optional(),
  configuration: z
    .object({
      blocking: z.boolean().optional(),
      historyLength: HistoryLength.optional(),
      acceptedOutputModes: z.array(z.string()).optional(),
      pushNotificationConfig: PushConfig.optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});
export type SendParams = z.infer<typeof SendParams>;

export const TaskQueryParams = z.object({
  id: Id,
  historyLength: HistoryLength.optional(),
  metadata: Metadata.optional(),
});

export const TaskIdParams = z.object({ id: Id, metadata: Metadata.optional() });

/** rev A names the task `id`, rev B `taskId`; either is fine. */
const TaskRef = z.object({ id: Id.optional(), taskId: Id.optional() });
const requireTask = <T extends { id?: string; taskId?: string }>(v: T) => v.id !== undefined || v.taskId !== undefined;
const taskRequired = { message: 'id (or taskId) is required', path: ['id'] };

export const PushSetParams = TaskRef.extend({ pushNotificationConfig: PushConfig, metadata: Metadata.optional() }).refine(requireTask, taskRequired);
export const PushGetParams = TaskRef.extend({ pushNotificationConfigId: Id.optional(), metadata: Metadata.optional() }).refine(requireTask, taskRequired);
export const PushListParams = TaskRef.extend({ metadata: Metadata.optional() }).refine(requireTask, taskRequired);
export const PushDeleteParams = TaskRef.extend({ pushNotificationConfigId: Id, metadata: Metadata.optional() }).refine(requireTask, taskRequired);

export const taskIdOf = (p: { id?: string; taskId?: string }): string => (p.taskId ?? p.id) as string;

/** A rev A part names its type `type`; a failing `kind` is reported under the name the caller sent. */
function callerPath(path: readonly PropertyKey[], params: unknown): string[] {
  const segs = path.map(String);
  if (segs[segs.length - 1] !== 'kind') return segs;
  let at: unknown = params;
  for (const s of segs.slice(0, -1)) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[s] : undefined;
  const sentType = typeof at === 'object' && at !== null && !('kind' in at) && 'type' in at;
  return sentType ? [...segs.slice(0, -1), 'type'] : segs;
}

function describeIssues(issues: readonly z.core.$ZodIssue[], params: unknown) {
  return issues.map((i) => ({ path: ['params', ...callerPath(i.path, params)].join('.'), message: i.message }));
}

const PROBLEM_TEXT: Record<JsonProblem['problem'], string> = {
  depth: `nests deeper than ${MAX_JSON_DEPTH} levels, the limit of accepted JSON`,
  'lone-surrogate': 'is not well-formed Unicode: a \\u escape of a lone UTF-16 surrogate (half of a pair) cannot be stored as sent',
  'proto-key': 'is a key the gateway does not take: "__proto__" would be read as an object\'s prototype and lost',
  'non-finite': 'is a number past the range of a double (such as 1e400): it would be read as Infinity and answered as null',
  'unsafe-integer':
    'is an integer past ±9007199254740991 (2^53 − 1): read as a double it would lose digits (12345678901234567890 reads as 12345678901234567000); send it as a string',
};

/** Params the gateway could not keep as sent: -32602 naming the path (and the limit, for depth). */
function unkeptParams(p: JsonProblem): RpcError {
  // a 500,000-character key holding 1e400 was answered, and logged, whole
  const path = shownPath(p.path);
  return new RpcError('INVALID_PARAMS', {
    message: `Invalid params: ${path} ${PROBLEM_TEXT[p.problem]}`,
    data: { path, ...(p.problem === 'depth' && { limit: MAX_JSON_DEPTH }) },
  });
}

/**
 * The refusal of params holding an integer past ±(2^53 − 1) at `path` (found in the body's text). Params also nested
 * past the depth limit are refused for that, as parseParams would: its walk stops at the limit.
 */
export function unsafeIntegerParams(params: unknown, path: string): RpcError {
  const deep = tooDeepAt(params, { limit: MAX_JSON_DEPTH, root: 'params' });
  return unkeptParams(deep !== undefined ? { path: deep, problem: 'depth' } : { path, problem: 'unsafe-integer' });
}

/** Parses `params` with `schema`; a failure is INVALID_PARAMS whose message and data name the failing path. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new RpcError('INVALID_PARAMS', { message: 'Invalid params: params must be an object', data: { path: 'params' } });
  }
  if (Object.hasOwn(params, '')) {
    throw new RpcError('INVALID_PARAMS', { message: 'Invalid params: params has an empty key', data: { path: 'params.""' } });
  }
  const problem = jsonProblemAt(params, { limit: MAX_JSON_DEPTH, root: 'params', text: true });
  if (problem !== undefined) throw unkeptParams(problem);
  const r = schema.safeParse(params);
  if (r.success) return r.data;
  const issues = describeIssues(r.error.issues, params);
  const first = issues[0]!;
  throw new RpcError('INVALID_PARAMS', {
    message: `Invalid params: ${first.path}: ${first.message}`,
    data: { path: first.path, issues },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Listing tasks (1.0's ListTasks; tasks/list is the gateway's same listing for the revisions)
// ---------------------------------------------------------------------------------------------------------------

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

/** A push config listing's page token: the offset in it, written as a decimal (callers treat it as opaque). */
export const PageToken = z.string().regex(/^\d{1,9}$/, 'not a page token this gateway gave out');
export const PageSize = z.number().int().min(1).max(MAX_PAGE_SIZE);
/** An RFC 3339 time with its zone (ISO 8601's profile that 1.0's Timestamp is), read to ms since the epoch. */
export const IsoTime = z.string().transform((s, ctx) => {
  const ms = rfc3339Ms(s);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 time with a zone, such as 2026-11-24T10:00:00Z' });
    return z.NEVER;
  }
  return ms;
});

export const ListTasksParams = z.object({
  contextId: Id.optional(),
  state: TaskState.optional(),
  pageSize: PageSize.optional(),
  pageToken: ListPageToken.optional(),
  historyLength: HistoryLength.optional(),
  includeArtifacts: z.boolean().optional(),
  statusTimestampAfter: IsoTime.optional(),
});

/** The listing query, defaults applied (an empty page token is the first page). */
export function listQuery(p: {
  contextId?: string;
  states?: readonly TaskState[];
  pageSize?: number;
  pageToken?: ListCursor | undefined;
  historyLength?: number;
  includeArtifacts?: boolean;
  statusTimestampAfter?: number;
}) {
  return {
    ...(p.contextId !== undefined && p.contextId !== '' && { contextId: p.contextId }),
    ...(p.states !== undefined && { states: p.states }),
    pageSize: p.pageSize ?? DEFAULT_PAGE_SIZE,
    ...(p.pageToken !== undefined && { after: p.pageToken }),
    ...(p.historyLength !== undefined && { historyLength: p.historyLength }),
    includeArtifacts: p.includeArtifacts === true,
    ...(p.statusTimestampAfter !== undefined && { statusSince: p.statusTimestampAfter }),
  };
}
