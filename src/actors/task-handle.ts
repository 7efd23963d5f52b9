// What a caller holds of a task it started or continued: its settled end and its current state, both once stored.
import type { Task } from '../protocol/model.js';

export interface TaskHandle {
  readonly id: string;
  /** the task once it reaches a terminal state or input-required, with that state stored */
  settled(): Promise<Task>;
  /** the task as it stands now, once what it went through so far is stored */
  current(): Promise<Task>;
}
