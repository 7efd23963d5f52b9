// Revision A (A2A 0.1) wire shapes: parts by `type`, tasks with sessionId, artifacts with index/append/lastChunk,
// and its stream events (status and artifact objects naming the task `id`).
import type { TaskEvent } from './events.js';
import type { Artifact, Message, Part, Task, TaskStatus } from './model.js';
import type { StoredPushConfig } from './records.js';
import type { TaskView } from './views.js';
import { maskedPushSecrets, publicMetadata } from './internal-fields.js';
import { withoutV1PartFields } from './codec-b.js';

/** 0.1 text and data parts have no `mediaType` or `filename` (1.0's): they are left out, not written under invented names. */
export function encodePartA(p: Part) {
  const { kind, ...rest } = withoutV1PartFields(p);
  return { type: kind, ...rest };
}

export function encodeMessageA(m: Message) {
  return { role: m.role, parts: m.parts.map(encodePartA), ...(m.metadata !== undefined && { metadata: m.metadata }) };
}

export function encodeArtifactA(a: Artifact) {
  return {
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    parts: a.parts.map(encodePartA),
    index: a.index,
    ...(a.append !== undefined && { append: a.append }),
    ...(a.lastChunk !== undefined && { lastChunk: a.lastChunk }),
    ...(a.metadata !== undefined && { metadata: a.metadata }),
  };
}

export function encodeStatusA(s: TaskStatus) {
  return { state: s.state, ...(s.message && { message: encodeMessageA(s.message) }), timestamp: s.timestamp };
}

export function encodeTaskA(v: TaskView) {
  const t = v.task;
  return {
    id: t.id,
    sessionId: t.contextId,
    status: encodeStatusA(t.status),
    artifacts: v.artifacts.map(encodeArtifactA),
    ...(v.history !== undefined && { history: v.history.map(encodeMessageA) }),
    metadata: publicMetadata(t.metadata),
  };
}

export function encodePushConfigA(c: StoredPushConfig, taskId: string) {
  return {
    id: taskId,
    pushNotificationConfig: {
      ...maskedPushSecrets(c),
    },
  };
}

export function encodeEventA(task: Pick<Task, 'id'>, ev: TaskEvent) {
  if (ev.kind === 'status') return { id: task.id, status: encodeStatusA(ev.status), final: ev.final };
  return { id: task.id, artifact: encodeArtifactA({ ...ev.artifact, append: ev.append, lastChunk: ev.lastChunk }) };
}

/**
 * Rev A has no task event: a stream opens with what the task already holds, its artifacts, then its status (which may
 * end the stream), so a stream that opens after the first chunks still carries them.
 */
export function openingEventsA(v: TaskView, settled: boolean) {
  return [
    // whole, as the live event for a whole artifact is (events.ts): one that never said lastChunk is its last chunk
    ...v.artifacts.map((a) => ({ id: v.task.id, artifact: encodeArtifactA({ ...a, append: false, lastChunk: a.lastChunk ?? true }) })),
    { id: v.task.id, status: encodeStatusA(v.task.status), final: settled },
  ];
}
