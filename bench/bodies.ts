// Bench request bodies (message/send, tasks/get) and the one-shot check that a target really
// answers them with a JSON-RPC result before wrk is pointed at it.

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

export interface TaskSummary {
  id: string;
  state: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** POSTs `body` once and returns the Task in `result`; throws with the reply when it is not one. */
export async function oneShot(url: string, body: string, authorization?: string): Promise<TaskSummary> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
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
  const { id, status } = json.result;
  if (typeof id !== 'string' || !isRecord(status) || typeof status.state !== 'string') throw fail('result is not a Task');
  if (status.state !== 'completed') throw fail(`task state is ${status.state}, expected completed`);
  return { id, state: status.state };
}
