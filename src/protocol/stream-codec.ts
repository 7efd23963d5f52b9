// Streamed event shapes per dialect: rev B status-update / artifact-update with `kind`, rev A the 0.1 event objects.
import { encodeArtifactA, encodeStatusA } from './codec-a.js';
import { encodeArtifactB, encodeStatusB } from './codec-b.js';
import type { TaskEvent } from './events.js';
import type { Dialect, Task } from './model.js';

export function encodeEvent(d: Dialect, task: Pick<Task, 'id' | 'contextId'>, ev: TaskEvent) {
  if (d === 'B') {
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
  if (ev.kind === 'status') return { id: task.id, status: encodeStatusA(ev.status), final: ev.final };
  return { id: task.id, artifact: encodeArtifactA({ ...ev.artifact, append: ev.append, lastChunk: ev.lastChunk }) };
}
