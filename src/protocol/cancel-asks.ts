// What gateway instances on one Redis tell each other about cancels: a cancel asked of whichever instance runs a
// task, and that instance's answer to the asker. Schemas only; the bus carries them, the supervisor acts on them.
import { z } from 'zod';
import { TaskState } from './model.js';

/** An instance's address: the event bus's origin, unique per process run. */
const Origin = z.string().min(1).max(100);

/** Names one ask among the asker's, so that its answer is matched to it (two cancels of one task may race). */
const AskId = z.string().min(1).max(100);

export const CancelMessage = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('ask'),
    /** the task's store key (workspace/id) */
    key: z.string().min(1).max(1000),
    /** absent: no answer wanted (the asker already stored the cancel; the run should stop now) */
    reply: z.object({ from: Origin, ask: AskId }).optional(),
    /** the X-Request-Id of the cancel call: it stamps the canceled status, as a cancel on the owner itself does */
    requestId: z.string().max(200).optional(),
  }),
  z.object({
    t: z.literal('answer'),
    to: Origin,
    ask: AskId,
    /** `canceled`: this ask canceled the task (stored); `not_cancelable`: it was already in `state` */
    outcome: z.enum(['canceled', 'not_cancelable']),
    state: TaskState.optional(),
  }),
]);
export type CancelMessage = z.infer<typeof CancelMessage>;
export type CancelAsk = Extract<CancelMessage, { t: 'ask' }>;
export type CancelAnswer = Extract<CancelMessage, { t: 'answer' }>;
