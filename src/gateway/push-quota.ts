// How many push notification configs one task may hold (push.maxConfigsPerTask): each config is one webhook per task
// change, so an unbounded number would let one caller turn every change into any number of outbound calls.
import { RpcError } from '../protocol/errors.js';
import type { PushConfigStore } from '../runtime/store/types.js';

/** The setting that names the bound (in refusals and docs). */
export const PUSH_CONFIGS_SETTING = 'push.maxConfigsPerTask';

export interface PushRoom {
  /** the store's task key (`workspace/task`) */
  taskKey: string;
  /** the task's id as the caller named it (for the message) */
  taskId: string;
  /** the config's id when the caller named one: a config of that id already stored is replaced, not added */
  configId?: string;
  /** where the caller wrote the config (the refusal names it) */
  path: string;
}

export class PushQuota {
  /** per task key, the add in progress: adds to one task run one at a time, so a batch cannot slip past the count */
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(private readonly o: { maxPerTask: number; configs: PushConfigStore }) {}

  /** Refuses (INVALID_PARAMS naming the path and the limit) when the task has no room for the config; changes nothing. */
  async check(room: PushRoom): Promise<void> {
    const held = await this.o.configs.list(room.taskKey);
    if (room.configId !== undefined && held.some((c) => c.id === room.configId)) return;
    if (held.length < this.o.maxPerTask) return;
    throw new RpcError('INVALID_PARAMS', {
      message: `Invalid params: ${room.path}: task ${room.taskId} already has ${held.length} push notification configs, the limit (${PUSH_CONFIGS_SETTING} = ${this.o.maxPerTask}); delete one first`,
      data: { path: room.path, limit: this.o.maxPerTask, setting: PUSH_CONFIGS_SETTING },
    });
  }

  /** Checks and then runs `store`, with no other add to the same task in between (in this process). */
  add<T>(room: PushRoom, store: () => Promise<T>): Promise<T> {
    const before = this.busy.get(room.taskKey) ?? Promise.resolve();
    const run = before.then(async () => {
      await this.check(room);
      return store();
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.busy.set(room.taskKey, settled);
    void settled.then(() => {
      if (this.busy.get(room.taskKey) === settled) this.busy.delete(room.taskKey);
    });
    return run;
  }
}
