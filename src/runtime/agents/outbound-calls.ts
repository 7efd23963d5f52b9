// What the worker runner asks of client mode when a module agent calls `ctx.call`: the connection layer implements it.
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import type { Message } from '../../protocol/model.js';
import type { PoolCall } from '../pool/index.js';
import type { TurnSignal } from './turn-signal.js';

/**
 * One `ctx.call`, checked by the pool (connection name syntax, message), with who asks: the agent `agentId` running a
 * turn of a task of `workspace`. The message is a user message with a fresh messageId (and `taskId`/`contextId` when
 * the agent answers a remote `input-required`); `onEvent` is set when `stream` is; `signal` aborts when the agent
 * cancels or its run ends first (done, failed, canceled, timed out, worker crashed).
 */
export interface OutboundCall extends PoolCall {
  workspace: string;
  agentId: string;
}

export interface OutboundCalls {
  /**
   * The remote's final task. Rejects with an error whose string `code` and message reach the agent as they are
   * (OutboundError's codes, 'not_permitted', 'data_type_refused', 'trust_refused', 'no_connection', or any other);
   * `remoteCode`, when a number, goes along. An error without a code is logged and reaches the agent as
   * 'call_failed' with its message stripped of paths.
   */
  call(o: OutboundCall): Promise<RemoteTask>;
}

/**
 * One outbound call in full, as the connection layer takes it: from a module agent's ctx.call, a remote agent's turn, or
 * `a2a-gateway call`. An OutboundCall is one of these.
 */
export interface ConnectionCall {
  workspace: string;
  /** the agent of ours that calls; undefined: the operator (`a2a-gateway call` without --agent) */
  agentId: string | undefined;
  connection: string;
  message: Message;
  /** true: stream (the trust level must allow it); 'auto': stream when the trust level and the remote allow it */
  stream: boolean | 'auto';
  /** continue this remote task (a follow-up to input-required); a message's own taskId means the same */
  taskId?: string;
  contextId?: string;
  signal?: TurnSignal;
  onEvent?: (ev: RemoteEvent) => void;
}

/** The connection layer (the connection supervisor implements it). */
export interface ConnectionCalls {
  call(o: ConnectionCall): Promise<RemoteTask>;
}
