// Sample stored records for tests: every optional field filled, nesting deep enough to catch a lossy encoding.
import type { ConnectionRecord, ConnectionState, ConnectionStatus, StoredResult } from '../../src/protocol/connections.js';
import type { Task, TaskState } from '../../src/protocol/model.js';
import type { KeyRecord, PushJob, StoredPushConfig } from '../../src/protocol/records.js';

const T0 = Date.UTC(2026, 0, 1);

export function sampleKey(opts: { id: string; workspaceId?: string; hash?: string }): KeyRecord {
  return {
    id: opts.id,
    hash: opts.hash ?? `hash-of-${opts.id}`,
    name: `key ${opts.id}`,
    workspaceId: opts.workspaceId ?? 'ws-a',
    trust: 'execute',
    scopes: ['tasks.read', 'tasks.create'],
    agents: ['echo', 'summarizer'],
    limits: { perMinute: 30, perHour: 500 },
    createdAt: T0,
    expiresAt: T0 + 86_400_000,
    revokedAt: null,
    rotatedFrom: 'key-before',
  };
}

export function sampleTask(opts: { id: string; state?: TaskState }): Task {
  return {
    id: opts.id,
    contextId: `ctx-${opts.id}`,
    workspaceId: 'ws-a',
    agentId: 'echo',
    dialect: 'B',
    status: {
      state: opts.state ?? 'working',
      timestamp: new Date(T0 + 5_000).toISOString(),
      message: {
        role: 'agent',
        messageId: `m-status-${opts.id}`,
        parts: [{ kind: 'text', text: 'thinking… 🤔' }],
        metadata: { progress: 0.5 },
      },
    },
    artifacts: [
      {
        artifactId: 'a1',
        index: 0,
        name: 'report',
        description: 'the result',
        parts: [
          { kind: 'text', text: 'line one\nline two', metadata: { lang: 'en' } },
          { kind: 'file', file: { name: 'r.pdf', mimeType: 'application/pdf', bytes: 'JVBERi0=' } },
          { kind: 'file', file: { uri: 'https://example.test/r.pdf' } },
          {
            kind: 'data',
            data: {
              rows: [
                [1, 2.5, -3],
                [null, true, 'x'],
              ],
              nested: { deep: { deeper: [{ k: 'v' }] } },
            },
          },
        ],
        append: true,
        lastChunk: false,
        metadata: { chunk: 2 },
      },
    ],
    history: [
      {
        role: 'user',
        messageId: `m1-${opts.id}`,
        taskId: opts.id,
        contextId: `ctx-${opts.id}`,
        parts: [{ kind: 'text', text: 'hello' }],
        metadata: { client: { name: 'cli', version: [1, 2, 3] } },
      },
      { role: 'agent', messageId: `m2-${opts.id}`, parts: [{ kind: 'data', data: { answer: 42 } }] },
    ],
    metadata: { __internal: { worker: 3 }, tags: ['a', 'b'], score: 0.125, big: 2 ** 40, empty: {}, none: null },
    createdAt: T0,
    updatedAt: T0 + 5_000,
    owner: 'gw-1',
  };
}

export function samplePushConfig(opts: { taskId: string; id: string }): StoredPushConfig {
  return {
    id: opts.id,
    taskId: opts.taskId,
    url: `https://hooks.example.test/${opts.taskId}/${opts.id}`,
    token: `tok-${opts.id}`,
    authentication: { schemes: ['Bearer'], credentials: 'secret' },
    createdAt: T0,
    disabled: false,
  };
}

/** A waiting webhook delivery: queue `q`, position `seq`, due at `dueAt` (default: T0). */
export function samplePushJob(opts: { queue: string; seq: number; dueAt?: number; id?: string }): PushJob {
  return {
    id: opts.id ?? `msg_${opts.queue}_${opts.seq}`,
    queue: opts.queue,
    seq: opts.seq,
    taskKey: `ws-a/task-${opts.queue}`,
    configId: `cfg-${opts.queue}`,
    workspaceId: 'ws-a',
    body: JSON.stringify({ kind: 'task', id: `task-${opts.queue}`, seq: opts.seq, text: 'ünïcödé ✓' }),
    attempts: 0,
    dueAt: opts.dueAt ?? T0,
    createdAt: T0,
  };
}

/** A stored connection: `sealed` is opaque to the store (any non-empty string), every optional setting filled. */
export function sampleConnection(opts: { workspace?: string; name: string; url?: string }): ConnectionRecord {
  return {
    id: `conn_${opts.workspace ?? 'ws-a'}_${opts.name}`,
    workspace: opts.workspace ?? 'ws-a',
    name: opts.name,
    url: opts.url ?? `https://agents.example.test/${opts.name}`,
    dialect: 'auto',
    storeResults: true,
    allowedDataTypes: ['text', 'data'],
    resultRetentionHours: 1.5,
    trust: 'autonomous',
    agents: ['echo', 'summarizer'],
    allowedOrigins: ['https://api.agents.example.test'],
    credentialKind: 'bearer',
    sealed: `AQ-sealed-${opts.name}`,
    createdAt: T0,
    updatedAt: T0 + 1,
  };
}

export function sampleConnectionStatus(opts: { state?: ConnectionState; failures?: number } = {}): ConnectionStatus {
  return {
    state: opts.state ?? 'backing-off',
    failures: opts.failures ?? 2,
    lastError: 'unreachable: ECONNREFUSED ünïcödé',
    nextRetryAt: T0 + 30_000,
    dialect: 'A',
    remoteName: 'Remote Echo',
    updatedAt: T0 + 2,
  };
}

/** An outbound result of `connection` in `workspace`, expiring at `expiresAt`; with the raw task unless `raw` is false. */
export function sampleResult(opts: {
  id: string;
  workspace?: string;
  connection?: string;
  createdAt?: number;
  expiresAt: number;
  raw?: boolean;
}): StoredResult {
  const createdAt = opts.createdAt ?? T0;
  const task = sampleTask({ id: `remote-${opts.id}`, state: 'completed' });
  return {
    id: opts.id,
    workspace: opts.workspace ?? 'ws-a',
    connection: opts.connection ?? 'remote-1',
    agentId: 'echo',
    remoteTaskId: task.id,
    state: 'completed',
    summary: 'line one\nline two 🤔 [file r.pdf application/pdf, 5 bytes]',
    ...(opts.raw !== false && {
      raw: { id: task.id, contextId: task.contextId, status: task.status, artifacts: task.artifacts, history: task.history, metadata: { n: 1 } },
    }),
    createdAt,
    expiresAt: opts.expiresAt,
  };
}
