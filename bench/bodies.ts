// Bench request bodies (message/send, tasks/get), per wire protocol (A2A 0.3 JSON-RPC, A2A 1.0
// JSON-RPC), and the one-shot check that a target really answers them before wrk is pointed at it.

export const SEND_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: '1',
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      role: 'user',
      messageId: 'm1',
      parts: [{ kind: 'text', text: 'hello' }],
      metadata: { agentId: 'echo' },
    },
  },
});

export function getBody(taskId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: '2', method: 'tasks/get', params: { id: taskId } });
}

/** A2A 1.0 (proto-JSON: PascalCase methods, no `kind`, enum names for role and state). */
export const SEND_BODY_V1 = JSON.stringify({
  jsonrpc: '2.0',
  id: '1',
  method: 'SendMessage',
  params: {
    message: {
      role: 'ROLE_USER',
      messageId: 'm1',
      parts: [{ text: 'hello' }],
      metadata: { agentId: 'echo' },
    },
  },
});

export function getBodyV1(taskId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: '2', method: 'GetTask', params: { id: taskId } });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a target speaks: the two bodies, the header every request carries, and where the Task is in a reply. */
export interface Wire {
  sendBody: string;
  getBody(taskId: string): string;
  /** one extra request header, `Name: value` */
  header?: string;
  /** the task state a good send reply carries (wrk checks for it as `"<state>"`) */
  completed: string;
  /** the Task inside a message/send (SendMessage) `result` */
  sendTask(result: Record<string, unknown>): unknown;
}

export type Protocol = 'a2a-0.3' | 'a2a-1.0';

export const WIRES: Record<Protocol, Wire> = {
  // message/send's result is the Task itself
  'a2a-0.3': { sendBody: SEND_BODY, getBody, completed: 'completed', sendTask: (result) => result },
  // SendMessage's result is {task: {...}} (or {message: {...}}); GetTask's is the Task
  'a2a-1.0': { sendBody: SEND_BODY_V1, getBody: getBodyV1, header: 'A2A-Version: 1.0', completed: 'TASK_STATE_COMPLETED', sendTask: (result) => result.task },
};

export interface TaskSummary {
  id: string;
  state: string;
}

/**
 * POSTs `body` once and returns the Task in its `result` (for `kind` 'send', where `wire` says it is
 * in a send's result); throws with the reply when it is not a completed Task.
 */
export async function oneShot(url: string, body: string, opts: { wire?: Wire; kind?: 'send' | 'get'; authorization?: string } = {}): Promise<TaskSummary> {
  const wire = opts.wire ?? WIRES['a2a-0.3'];
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  if (wire.header !== undefined) {
    const at = wire.header.indexOf(':');
    headers[wire.header.slice(0, at).trim()] = wire.header.slice(at + 1).trim();
  }
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  const fail = (why: string): Error => new Error(`one-shot check of ${url} failed (${why}): HTTP ${res.status} ${text.slice(0, 500)}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail('reply is not JSON');
  }
  if (res.status !== 200) throw fail('status is not 200');
  if (!isRecord(json) || 'error' in json || !isRecord(json.result)) throw fail('no "result" object');
  const task = (opts.kind ?? 'send') === 'send' ? wire.sendTask(json.result) : json.result;
  if (!isRecord(task)) throw fail('result holds no Task');
  const { id, status } = task;
  if (typeof id !== 'string' || !isRecord(status) || typeof status.state !== 'string') throw fail('result is not a Task');
  if (status.state !== wire.completed) throw fail(`task state is ${status.state}, expected ${wire.completed}`);
  return { id, state: status.state };
}
