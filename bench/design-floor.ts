// Bench target "floor": the parts the design fixes for a `message/send`, and nothing else. Per send: one echo turn on
// the real agent pool (Piscina, batched as the gateway's), one durable LMDB put, awaited before the answer. No task
// machine (live tasks no longer hold an XState actor each: docs/decisions.md), key check, limiter, schemas, sanitizer,
// indexes or events; ids time-ordered as the gateway's. What the gateway could reach if everything of its own cost
// nothing: a ceiling to read the goals against, not a competitor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { AgentSpec, type AgentEvent } from '../src/protocol/agent-events.js';
import { createAgentPool } from '../src/runtime/pool/index.js';
import { timeOrderedId } from '../src/runtime/time-ordered-id.js';
import { listenRpc, rpcApp } from './uws-rpc.js';

interface FloorTask {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: string; timestamp: string };
  history: unknown[];
  artifacts: unknown[];
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-floor-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// lmdb-js's defaults: a put's promise resolves once its commit is flushed to disk, as the gateway's store does
const db = open<FloorTask, string>({ path: dir });
const pool = createAgentPool({ minThreads: 2, maxThreads: 2 });
const agent = AgentSpec.parse({ id: 'echo', name: 'Echo', description: 'Echoes the message back' });

const rpcError = (id: unknown, code: number, message: string): string => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

async function send(id: unknown, message: Record<string, unknown>): Promise<string> {
  const task: FloorTask = {
    kind: 'task',
    // the gateway's own ids (time-ordered, so that a commit's puts share pages): the floor keeps every cost-free choice
    id: timeOrderedId(Date.now()),
    contextId: timeOrderedId(Date.now()),
    status: { state: 'submitted', timestamp: new Date().toISOString() },
    history: [message],
    artifacts: [],
  };
  const artifacts: unknown[] = [];
  const onEvent = (ev: AgentEvent): void => {
    if (ev.type === 'artifact') artifacts.push(ev.artifact);
  };
  const run = await pool.run(
    { agent, task: { id: task.id, contextId: task.contextId, history: [], artifacts: [], metadata: {} }, message: message as never },
    { onEvent },
  );
  if (!run.ok) return rpcError(id, -32603, run.error.message);
  const done: FloorTask = { ...task, status: { state: 'completed', timestamp: new Date().toISOString() }, artifacts };
  await db.put(done.id, done);
  return JSON.stringify({ jsonrpc: '2.0', id, result: done });
}

function get(id: unknown, taskId: unknown): string {
  const task = typeof taskId === 'string' ? db.get(taskId) : undefined;
  return task === undefined ? rpcError(id, -32001, 'Task not found') : JSON.stringify({ jsonrpc: '2.0', id, result: task });
}

async function reply(body: Buffer): Promise<string> {
  let call: { id?: unknown; method?: unknown; params?: { message?: Record<string, unknown>; id?: unknown } };
  try {
    call = JSON.parse(body.toString('utf8'));
  } catch {
    return rpcError(null, -32700, 'Parse error');
  }
  if (call.method === 'message/send' && call.params?.message) return send(call.id, call.params.message);
  if (call.method === 'tasks/get') return get(call.id, call.params?.id);
  return rpcError(call.id ?? null, -32601, 'Method not found');
}

let listening = 0;
const app = rpcApp(reply);
// the card the SDK client of the bench's relay section starts from (its 1-caller floor row)
app.get('/.well-known/agent-card.json', (res) => {
  const card = {
    name: 'design floor',
    description: 'echo through the parts the design fixes',
    url: `http://127.0.0.1:${listening}/api/a2a`,
    version: '1.0.0',
    protocolVersion: '0.3.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  res.writeHeader('Content-Type', 'application/json').end(JSON.stringify(card));
});
listenRpc(app, {
  name: 'design-floor',
  onPort: (port) => {
    listening = port;
  },
});
