// The dialect codecs: one per served dialect, each reading a call's params into the internal model and writing
// results, stream events (and a stream's opening events) and push configs in its own shapes. A dialect is one codec
// here plus its rows in the gateway's method table; handlers never branch on the dialect.
import { encodeEventA, encodePushConfigA, encodeTaskA, openingEventsA } from './codec-a.js';
import { encodeEventB, encodePushConfigB, encodeTaskB } from './codec-b.js';
import { readsV1, v1Codec } from './codec-v1.js';
import type { TaskEvent } from './events.js';
import type { Dialect, Task, TaskDialect, TaskState } from './model.js';
import {
  ListTasksParams,
  listQuery,
  parseParams,
  PushDeleteParams,
  PushGetParams,
  PushListParams,
  PushSetParams,
  SendParams,
  TaskIdParams,
  TaskQueryParams,
  taskIdOf,
} from './params.js';
import type { ListCursor } from './list-token.js';
import type { PushConfig, StoredPushConfig } from './records.js';
import type { TaskView } from './views.js';

/** A task listing's query (ListTasks, and the gateway's tasks/list for the revisions). */
export interface ListQuery {
  contextId?: string;
  /** the states asked for (empty: a state the gateway never holds, so nothing matches); undefined: any */
  states?: readonly TaskState[];
  pageSize: number;
  /** the page starts just after this place in the listing order (the page token); absent: at its top */
  after?: ListCursor;
  historyLength?: number;
  includeArtifacts: boolean;
  /** only tasks whose status time is at or after this (ms) */
  statusSince?: number;
}

/** What a dialect's params come to, in the internal model; `path` names the field as the caller sent it. */
export interface CallReads {
  listTasks(params: unknown): ListQuery;
  send(params: unknown): SendParams;
  taskQuery(params: unknown): { id: string; historyLength?: number };
  taskId(params: unknown): { id: string };
  pushSet(params: unknown): { taskId: string; config: PushConfig; urlPath: string };
  pushGet(params: unknown): { taskId: string; configId?: string };
  /** `page`: 1.0's paging (size 0: every config); the revisions list every config */
  pushList(params: unknown): { taskId: string; page?: { size: number; offset: number } };
  pushDelete(params: unknown): { taskId: string; configId: string };
}

export interface DialectCodec {
  read: CallReads;
  /** the dialect's rules for a send: 0.2 and later require the sender's messageId; only 0.1 lets a caller name a new task */
  send: { messageIdRequired: boolean; callerNamesNewTask: boolean; inlinePushUrlPath?: string };
  /** 1.0 refuses a subscription to a terminal task (UnsupportedOperationError); the revisions answer the task and end */
  subscribe: { refusesTerminal: boolean };
  task(v: TaskView): unknown;
  /** a task as a listing shows it: without its artifacts unless asked (0.x: an empty list; 1.0: no field at all) */
  listedTask(v: TaskView, withArtifacts: boolean): unknown;
  /** a send's (blocking or not) result: rev A and B answer the task itself, 1.0 wraps it as `{task}` */
  sendResult(v: TaskView): unknown;
  /** a webhook's body: the revisions post the task, 1.0 a StreamResponse (`{task}`), as the SDK 1.x server does */
  pushBody(v: TaskView): unknown;
  event(task: Pick<Task, 'id' | 'contextId'>, ev: TaskEvent): unknown;
  /** what a stream opens with when it does not replay: the task as it stands (the last one may end the stream) */
  openingEvents(v: TaskView, settled: boolean): unknown[];
  pushConfig(c: StoredPushConfig, taskId: string): unknown;
  /** `nextPageToken`: '' on the last page (1.0 writes it; the revisions answer a bare list) */
  pushConfigs(cs: readonly StoredPushConfig[], taskId: string, nextPageToken: string): unknown;
}

/** A listing's page as every dialect answers it: the tasks (each already encoded) and the paging fields. */
export const taskListPage = (o: { tasks: unknown[]; nextPageToken: string; pageSize: number; totalSize: number }) => ({
  tasks: o.tasks,
  nextPageToken: o.nextPageToken,
  pageSize: o.pageSize,
  totalSize: o.totalSize,
});

/** Rev A and rev B read the same (lenient) params: parts by `type` or `kind`, the task as `id` or `taskId`. */
const readsAB: CallReads = {
  listTasks: (params) => {
    const p = parseParams(ListTasksParams, params ?? {});
    return listQuery({ ...p, states: p.state === undefined ? undefined : [p.state] });
  },
  send: (params) => parseParams(SendParams, params),
  taskQuery: (params) => parseParams(TaskQueryParams, params),
  taskId: (params) => parseParams(TaskIdParams, params),
  pushSet: (params) => {
    const p = parseParams(PushSetParams, params);
    return { taskId: taskIdOf(p), config: p.pushNotificationConfig, urlPath: 'params.pushNotificationConfig.url' };
  },
  pushGet: (params) => {
    const p = parseParams(PushGetParams, params);
    return { taskId: taskIdOf(p), ...(p.pushNotificationConfigId !== undefined && { configId: p.pushNotificationConfigId }) };
  },
  pushList: (params) => ({ taskId: taskIdOf(parseParams(PushListParams, params)) }),
  pushDelete: (params) => {
    const p = parseParams(PushDeleteParams, params);
    return { taskId: taskIdOf(p), configId: p.pushNotificationConfigId };
  },
};

export const codecs: Record<TaskDialect, DialectCodec> = {
  A: {
    read: readsAB,
    send: { messageIdRequired: false, callerNamesNewTask: true },
    subscribe: { refusesTerminal: false },
    task: encodeTaskA,
    listedTask: (v, withArtifacts) => encodeTaskA(withArtifacts ? v : { ...v, artifacts: [] }),
    sendResult: encodeTaskA,
    pushBody: encodeTaskA,
    event: encodeEventA,
    openingEvents: openingEventsA,
    pushConfig: encodePushConfigA,
    pushConfigs: (cs, taskId) => cs.map((c) => encodePushConfigA(c, taskId)),
  },
  B: {
    read: readsAB,
    send: { messageIdRequired: true, callerNamesNewTask: false },
    subscribe: { refusesTerminal: false },
    task: encodeTaskB,
    listedTask: (v, withArtifacts) => encodeTaskB(withArtifacts ? v : { ...v, artifacts: [] }),
    sendResult: encodeTaskB,
    pushBody: encodeTaskB,
    event: encodeEventB,
    openingEvents: (v, _settled) => [encodeTaskB(v)],
    pushConfig: encodePushConfigB,
    pushConfigs: (cs, taskId) => cs.map((c) => encodePushConfigB(c, taskId)),
  },
  V1: { ...v1Codec, read: readsV1 },
};

/**
 * The `major.minor` an `A2A-Version` value names (a patch part ignored, each part read as a number: `00.3` is 0.3), or
 * undefined when it is not a version. One reading for whether it is spoken and for the dialect it picks: `0.03` was
 * spoken (0.3) but picked no dialect (its text did not start with "0.3").
 */
function versionOf(v: string): string | undefined {
  const m = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(v.trim());
  return m ? `${Number(m[1])}.${Number(m[2] ?? 0)}` : undefined;
}

/** `A2A-Version: 0.1` means revision A; 0.2 and 0.3 mean revision B; anything else says nothing of the shared 0.x names. */
export function dialectOfVersionHeader(v: string | undefined): Dialect | undefined {
  if (!v) return undefined;
  const version = versionOf(v);
  if (version === '0.1') return 'A';
  if (version === '0.2' || version === '0.3') return 'B';
  return undefined;
}

/** The protocol versions a caller may name in `A2A-Version` (major.minor; a patch part is ignored). */
export const SUPPORTED_VERSIONS: readonly string[] = ['0.1', '0.2', '0.3', '1.0'];

/**
 * Whether the gateway speaks the version an `A2A-Version` header names. No header (or an empty one) is fine: 1.0 reads
 * its absence as 0.3, and the method's name fixes the dialect anyway.
 */
export function isSupportedVersion(v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return true;
  const version = versionOf(v);
  return version !== undefined && SUPPORTED_VERSIONS.includes(version);
}

/** Errors read as 1.0's when the method is a 1.0 name or the header names 1.0 or later (an unsupported 2.0 included). */
export function versionAnswersV1(v: string | undefined): boolean {
  const m = v === undefined ? null : /^(\d+)/.exec(v.trim());
  return m !== null && Number(m[1]) >= 1;
}

/**
 * Whether a call's errors read in 1.0's shape: its method is a 1.0 name, or its A2A-Version names 1.0. One rule for
 * every error of the call, those a stream ends with included, whatever dialect its task or events are in.
 */
export const errorsInV1 = (o: { methodDialect: TaskDialect | undefined; version: string | undefined }): boolean =>
  o.methodDialect === 'V1' || versionAnswersV1(o.version);
