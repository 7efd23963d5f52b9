// A2A 1.0's names of the task states (TASK_STATE_*): a leaf, so that both the 1.0 codec and the error catalogue (whose
// 1.0 ErrorInfo names a task's state) read one table without the catalogue importing the codec (which imports it back).
import type { TaskState } from './model.js';

export const STATE_V1 = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
} as const satisfies Record<TaskState, string>;

/** 1.0's name of an internal state; anything else (not a state the gateway holds) is returned as it is. */
export const stateNameV1 = (s: string): string => (Object.hasOwn(STATE_V1, s) ? STATE_V1[s as TaskState] : s);
