// What a caller may see of a task: history length, and the results.read / results.files gates. Pure functions.
import type { Artifact, Message, Part, Task, TaskStatus } from './model.js';

export interface TaskViewOptions {
  /** absent: whole history; 0: none; n: the last n messages */
  historyLength?: number;
  /** results.read: without it a task comes back with its status only (state and time, no message, artifacts or history) */
  results: boolean;
  /** results.files: without it file parts keep name and mime type but lose bytes and uri */
  files: boolean;
}

export interface TaskView {
  task: Task;
  /** undefined when the history is not to be shown at all */
  history: Message[] | undefined;
  artifacts: Artifact[];
}

function stripFile(p: Part): Part {
  if (p.kind !== 'file') return p;
  const { name, mimeType } = p.file;
  return { ...p, file: { ...(name !== undefined && { name }), ...(mimeType !== undefined && { mimeType }) } };
}

const gateParts = (parts: Part[], files: boolean): Part[] => (files ? parts : parts.map(stripFile));

function gateMessage(m: Message, files: boolean): Message {
  return files ? m : { ...m, parts: gateParts(m.parts, false) };
}

/** A status as the caller may see it (file parts of its message gated). */
export function gateStatus(s: TaskStatus, o: TaskViewOptions): TaskStatus {
  if (!o.results && s.message) {
    const { message: _hidden, ...statusOnly } = s;
    return statusOnly;
  }
  return s.message && !o.files ? { ...s, message: gateMessage(s.message, false) } : s;
}

/** An artifact (or chunk) as the caller may see it: no parts without results.read, file parts gated. */
export function gateArtifact(a: Artifact, o: TaskViewOptions): Artifact {
  if (!o.results) return { ...a, parts: [] };
  return o.files ? a : { ...a, parts: gateParts(a.parts, false) };
}

export function sliceHistory(history: Message[], n: number | undefined): Message[] {
  if (n === undefined) return history;
  if (n === 0) return [];
  return history.slice(-n);
}

export function taskView(task: Task, o: TaskViewOptions): TaskView {
  const statusMessage = task.status.message && gateMessage(task.status.message, o.files);
  const gated: Task = statusMessage === task.status.message ? task : { ...task, status: { ...task.status, message: statusMessage } };
  if (!o.results) {
    const { message: _hidden, ...statusOnly } = task.status;
    return { task: { ...task, status: statusOnly }, history: undefined, artifacts: [] };
  }
  return {
    task: gated,
    history: sliceHistory(task.history, o.historyLength).map((m) => gateMessage(m, o.files)),
    artifacts: o.files ? task.artifacts : task.artifacts.map((a) => ({ ...a, parts: gateParts(a.parts, false) })),
  };
}
