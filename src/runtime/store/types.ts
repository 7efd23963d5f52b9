// The store contract that both engines (LMDB embedded, Redis shared) implement; one test suite proves both.
import type { TaskEvent } from '../../protocol/events.js';
import type { Task, TaskState } from '../../protocol/model.js';
import type { KeyRecord, StoredPushConfig } from '../../protocol/records.js';

export interface KeyStore {
  put(rec: KeyRecord): Promise<void>;
  get(id: string): Promise<KeyRecord | undefined>;
  getByHash(hash: string): Promise<KeyRecord | undefined>;
  list(filter?: { workspaceId?: string }): Promise<KeyRecord[]>;
}

/**
 * Task ids are scoped by workspace: two workspaces may use the same (client-chosen, rev A) id, and
 * one workspace can never reach another's task by id. Workspace ids never contain '/'.
 */
export const taskKey = (workspaceId: string, id: string): string => `${workspaceId}/${id}`;

export interface TaskStore {
  /** Writes the whole record under taskKey(workspaceId, id) (the actor owns it; last writer wins). */
  put(task: Task): Promise<void>;
  get(workspaceId: string, id: string): Promise<Task | undefined>;
  /** Tasks whose stored state is one of `states` (start-up recovery). */
  listByState(states: readonly TaskState[]): Promise<Task[]>;
}

/** Push configs are kept per task under its taskKey. */
export interface PushConfigStore {
  put(cfg: StoredPushConfig): Promise<void>;
  get(taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  list(taskId: string): Promise<StoredPushConfig[]>;
  /** true when something was deleted */
  delete(taskId: string, id: string): Promise<boolean>;
}

/** Each task's events, kept for replay (resubscribe with Last-Event-ID), bounded per task. */
export interface EventStore {
  /** appends events whose seqs increase (the task's owner assigns them); keeps the last `retain` per task */
  append(taskKey: string, events: readonly TaskEvent[], retain: number): Promise<void>;
  /** the retained events with seq > `after`, in order */
  after(taskKey: string, after: number): Promise<TaskEvent[]>;
}

/** A small key-value area for server-wide values (e.g. per-workspace webhook secrets). */
export interface MetaStore {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
}

export interface Store {
  readonly kind: 'lmdb' | 'redis';
  readonly keys: KeyStore;
  readonly tasks: TaskStore;
  readonly pushConfigs: PushConfigStore;
  readonly meta: MetaStore;
  readonly events: EventStore;
  close(): Promise<void>;
}
