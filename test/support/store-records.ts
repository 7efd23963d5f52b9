// Sample stored records for tests: every optional field filled, nesting deep enough to catch a lossy encoding.
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
