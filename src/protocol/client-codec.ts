// The client side of each dialect: method names and request params written in the remote's dialect, its answers read
// back into the internal model. One codec per dialect in one table, so A2A 1.0 is one more entry.
import type { RemoteEvent, RemoteTask } from './connections.js';
import { encodeMessageA } from './codec-a.js';
import { encodeMessageB } from './codec-b.js';
import { encodeMessageV1 } from './codec-v1.js';
import { decodeRemoteEventV1, decodeRemoteTaskV1 } from './remote-decode-v1.js';
import type { Dialect, Message } from './model.js';
import { decodeRemoteEvent, decodeRemoteTask, type DecodeContext } from './remote-decode.js';

export interface SendEncoding {
  message: Message;
  /** the remote task this message continues, or (rev A) the id the client picked for a new one */
  taskId?: string;
  contextId?: string;
  /** rev B: wait for the task to settle before answering (rev A sends always wait) */
  blocking: boolean;
}

export interface ClientCodec {
  readonly dialect: Dialect;
  /** what the `A2A-Version` header says: shared methods (tasks/get, tasks/cancel) are answered in that dialect */
  readonly version: string;
  readonly methods: { readonly send: string; readonly stream: string; readonly get: string; readonly cancel: string };
  /** rev A: a new task's id is the client's to pick (so it is known before any answer); rev B: the server picks it */
  readonly clientPicksTaskId: boolean;
  sendParams(o: SendEncoding): Record<string, unknown>;
  getParams(o: { taskId: string; historyLength?: number }): Record<string, unknown>;
  cancelParams(o: { taskId: string }): Record<string, unknown>;
  decodeTask(v: unknown, ctx: DecodeContext): RemoteTask;
  decodeEvent(v: unknown, ctx: DecodeContext): RemoteEvent;
}

const taskParams = (o: { taskId: string; historyLength?: number }) => ({
  id: o.taskId,
  ...(o.historyLength !== undefined && { historyLength: o.historyLength }),
});

/** The message as it leaves: our own task and context ids never go out, only the remote's (when continuing). */
const outbound = (m: Message): Message => {
  const { taskId: _t, contextId: _c, ...rest } = m;
  return rest;
};

const codecA: ClientCodec = {
  dialect: 'A',
  version: '0.1',
  methods: { send: 'tasks/send', stream: 'tasks/sendSubscribe', get: 'tasks/get', cancel: 'tasks/cancel' },
  clientPicksTaskId: true,
  sendParams: (o) => ({
    ...(o.taskId !== undefined && { id: o.taskId }),
    ...(o.contextId !== undefined && { sessionId: o.contextId }),
    message: encodeMessageA(outbound(o.message)),
  }),
  getParams: taskParams,
  cancelParams: (o) => ({ id: o.taskId }),
  decodeTask: (v, ctx) => decodeRemoteTask(v, ctx),
  decodeEvent: (v, ctx) => decodeRemoteEvent(v, ctx),
};

const codecB: ClientCodec = {
  dialect: 'B',
  version: '0.3',
  methods: { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel' },
  clientPicksTaskId: false,
  sendParams: (o) => ({
    message: encodeMessageB({
      ...outbound(o.message),
      ...(o.taskId !== undefined && { taskId: o.taskId }),
      ...(o.contextId !== undefined && { contextId: o.contextId }),
    }),
    configuration: { blocking: o.blocking },
  }),
  getParams: taskParams,
  cancelParams: (o) => ({ id: o.taskId }),
  decodeTask: (v, ctx) => decodeRemoteTask(v, ctx),
  decodeEvent: (v, ctx) => decodeRemoteEvent(v, ctx),
};

const codecV1: ClientCodec = {
  dialect: 'V1',
  version: '1.0',
  methods: { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask' },
  clientPicksTaskId: false,
  sendParams: (o) => ({
    message: encodeMessageV1({
      ...outbound(o.message),
      ...(o.taskId !== undefined && { taskId: o.taskId }),
      ...(o.contextId !== undefined && { contextId: o.contextId }),
    }),
    configuration: { returnImmediately: !o.blocking },
  }),
  getParams: taskParams,
  cancelParams: (o) => ({ id: o.taskId }),
  decodeTask: (v, ctx) => decodeRemoteTaskV1(v, ctx),
  decodeEvent: (v, ctx) => decodeRemoteEventV1(v, ctx),
};

export const CLIENT_CODECS: Readonly<Record<Dialect, ClientCodec>> = { A: codecA, B: codecB, V1: codecV1 };
