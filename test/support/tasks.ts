// Test support for task-level assertions: waiting for a task state over the API, a task as answered, read and stored,
// and reading what the store holds.
import type { Task, TaskState } from '../../src/protocol/model.js';
import type { TestGateway } from './gateway.js';

export const ALL_STATES: readonly TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'];

/** Every stored task, as sorted `workspace/id state updatedAt history-length` lines: equal lines mean nothing changed. */
export async function storedTasks(gw: TestGateway): Promise<string[]> {
  const all: Task[] = await gw.gw.store.tasks.listByState(ALL_STATES);
  return all.map((t) => `${t.workspaceId}/${t.id} ${t.status.state} ${t.updatedAt} ${t.history.length}`).sort();
}

/** The answer's task (its JSON-RPC result), the same task as a later tasks/get shows it, and as the store keeps it. */
export async function taskSeen(
  g: TestGateway,
  o: { key: string; workspace: string; answer: { json: any } },
): Promise<{ task: any; read: any; stored: Task | undefined }> {
  const task = o.answer.json.result;
  const read = (await g.rpc({ key: o.key, method: 'tasks/get', params: { id: task?.id } })).json.result;
  const stored = await g.gw.store.tasks.get(o.workspace, task?.id);
  return { task, read, stored };
}

/**
 * Polls tasks/get until the task is in one of `states`; returns the last result (in the task's dialect).
 * Throws with the last state seen when `timeoutMs` passes first.
 */
export async function waitForState(
  gw: TestGateway,
  o: { key: string; id: string; states: readonly TaskState[]; timeoutMs?: number; headers?: Record<string, string> },
): Promise<any> {
  const deadline = Date.now() + (o.timeoutMs ?? 10_000);
  let last: unknown;
  for (;;) {
    const r = await gw.rpc({ method: 'tasks/get', key: o.key, params: { id: o.id, historyLength: 0 }, headers: o.headers });
    last = r.json?.result?.status?.state ?? r.json?.error;
    if (r.json?.result && o.states.includes(r.json.result.status.state)) return r.json.result;
    if (Date.now() > deadline) throw new Error(`task ${o.id} did not reach ${o.states.join('|')} in time; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
