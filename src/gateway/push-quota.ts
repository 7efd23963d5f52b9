// How many push notification configs one task may hold (push.maxConfigsPerTask): each config is one webhook per task
// change, so an unbounded number would let one caller turn every change into any number of outbound calls.
import { RpcError } from '../protocol/errors.js';
import type { StoredPushConfig } from '../protocol/records.js';
import type { PushConfigStore } from '../runtime/store/types.js';

/** The setting that names the bound (in refusals and docs). */
export const PUSH_CONFIGS_SETTING = 'push.maxConfigsPerTask';

export interface PushRoom {
  /** the store's task key (`workspace/task`) */
  taskKey: string;
  /** the task's id as the caller named it (for the message) */
  taskId: string;
  /** the config's id when the caller named one: a config of that id already stored is replaced, not added (check) */
  configId?: string;
  /** where the caller wrote the config (the refusal names it) */
  path: string;
}

export class PushQuota {
  constructor(private readonly o: { maxPerTask: number; configs: PushConfigStore }) {}

  /**
   * Refuses (INVALID_PARAMS naming the path and the limit) when the task has no room for the config; changes nothing.
   * A read ahead of time (a send refuses before its message is delivered): `add` decides.
   */
  async check(room: PushRoom): Promise<void> {
    const held = await this.o.configs.list(room.taskKey);
    if (room.configId !== undefined && held.some((c) => c.id === room.configId)) return;
    if (held.length >= this.o.maxPerTask) throw this.refusal(room, held.length);
  }

  /**
   * Stores the config (already sealed) if the task has room, or refuses as `check` does. The store counts and writes
   * in one atomic step, so adds at once, on this instance or on others sharing the store, never overshoot the bound.
   */
  async add(room: PushRoom, cfg: StoredPushConfig): Promise<void> {
    const r = await this.o.configs.add(cfg, { maxPerTask: this.o.maxPerTask });
    if (!r.stored) throw this.refusal(room, r.held);
  }

  private refusal(room: PushRoom, held: number): RpcError {
    return new RpcError('INVALID_PARAMS', {
      message: `Invalid params: ${room.path}: task ${room.taskId} already has ${held} push notification configs, the limit (${PUSH_CONFIGS_SETTING} = ${this.o.maxPerTask}); delete one first`,
      data: { path: room.path, limit: this.o.maxPerTask, setting: PUSH_CONFIGS_SETTING },
    });
  }
}
