// Revision B (A2A 0.2/0.3) wire shapes: every object has a `kind`; tasks have contextId, artifacts artifactId; stream
// events are status-update and artifact-update.
import type { TaskEvent } from './events.js';
import { extensionsOf, referencesOf, type Artifact, type Message, type Part, type Task, type TaskStatus } from './model.js';
import type { StoredPushConfig } from './records.js';
import type { TaskView } from './views.js';
import { maskedPushSecrets, publicMetadata } from './internal-fields.js';

/**
 * A text or data part without its `mediaType` and `filename`: 0.1-0.3's TextPart and DataPart have no such fields (they
 * are 1.0's), so the revisions do not write them (a file part's are its `file.mimeType` and `file.name`, which they
 * do have).
 */
export function withoutV1PartFields(p: Part): Part {
  if (p.kind === 'file' || (p.mediaType === undefined && p.filename === undefined)) return p;
  const { mediaType: _v1Type, filename: _v1Name, ...rest } = p;
  return rest;
}

export const encodePartB = withoutV1PartFields;

export function encodeMessageB(m: Message) {
  return {
    kind: 'message' as const,
    role: m.role,
    parts: m.parts.map(encodePartB),
    messageId: m.messageId,
    ...(m.taskId !== undefined && { taskId: m.taskId }),
    ...(m.contextId !== undefined && { contextId: m.contextId }),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...extensionsOf(m),
    ...referencesOf(m),
  };
}

export function encodeArtifactB(a: Artifact) {
  return {
    artifactId: a.artifactId,
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    parts: a.parts.map(encodePartB),
    ...(a.metadata !== undefined && { metadata: a.metadata }),
    ...extensionsOf(a),
  };
}

export function encodeStatusB(s: TaskStatus) {
  return { state: s.state, ...(s.message && { message: encodeMessageB(s.message) }), timestamp: s.timestamp };
}

export function encodeTaskB(v: TaskView) {
  const t = v.task;
  return {
    kind: 'task' as const,
    id: t.id,
    contextId: t.contextId,
    status: encodeStatusB(t.status),
    artifacts: v.artifacts.map(encodeArtifactB),
    ...(v.history !== undefined && { history: v.history.map(encodeMessageB) }),
    metadata: publicMetadata(t.metadata),
  };
}

export function encodePushConfigB(c: StoredPushConfig, taskId: string) {
  return {
    taskId,
    pushNotificationConfig: {
      id: c.id,
      ...maskedPushSecrets(c),
    },
  };
}

export function encodeEventB(task: Pick<Task, 'id' | 'contextId'>, ev: TaskEvent) {
  if (ev.kind === 'status') {
    return { kind: 'status-update' as const, taskId: task.id, contextId: task.contextId, status: encodeStatusB(ev.status), final: ev.final };
  }
  return {
    kind: 'artifact-update' as const,
    taskId: task.id,
    contextId: task.contextId,
    artifact: encodeArtifactB(ev.artifact),
    append: ev.append,
    lastChunk: ev.lastChunk,
  };
}
