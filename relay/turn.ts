// One turn of a `run` frame against a local agent: the project's remote runner over the A2A client, under the local
// timeout (no answer or event for `timeoutMs` aborts the call, which cancels the local task).
import type { AgentEvent } from '../src/protocol/agent-events.js';
import type { Task } from '../src/protocol/model.js';
import type { GatewayFrame } from '../src/protocol/tunnel.js';
import type { Clock, Timers } from '../src/runtime/clock.js';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import type { ConnectionCalls } from '../src/runtime/agents/outbound-calls.js';
import { createRemoteRunner } from '../src/runtime/agents/remote-runner.js';

export type RunFrame = Extract<GatewayFrame, { t: 'run' }>;

export type TurnResult = { ok: true } | { ok: false; reason: string; message: string };

export interface TurnOptions {
  client: A2AClient;
  clock: Clock;
  timers: Timers;
  /** the relay's workspace (the task snapshot names none) */
  workspace: string;
  endpoint: RemoteEndpoint;
  frame: RunFrame;
  timeoutMs: number;
  /** aborted by a `cancel` frame or the tunnel's end */
  signal: AbortSignal;
  onEvent: (ev: AgentEvent) => void;
}

/** The remote runner's reasons (`remote_unreachable`, ...) told as the local agent's; its JSON-RPC errors are `local_agent_error`. */
const localReason = (reason: string): string => {
  if (reason === 'remote_error' || reason === 'remote_remote_error') return 'local_agent_error';
  return reason.startsWith('remote_') ? `local_agent_${reason.slice('remote_'.length)}` : reason;
};

export async function runTurn(o: TurnOptions): Promise<TurnResult> {
  const ctl = new AbortController();
  let timedOut = false;
  let cancelTimer = () => {};
  const arm = () => {
    cancelTimer();
    cancelTimer = o.timers.after(o.timeoutMs, () => {
      timedOut = true;
      ctl.abort();
    });
  };
  const onCancel = () => ctl.abort();
  o.signal.addEventListener('abort', onCancel, { once: true });
  if (o.signal.aborted) ctl.abort();

  // the runner's one connection is the local agent: every call goes to its endpoint, under our abort and timer
  const calls: ConnectionCalls = {
    call: (c) =>
      o.client.send({
        endpoint: o.endpoint,
        message: c.message,
        // as the remote runner's 'auto': SSE when the local card offers it, so the local task id is known at once
        // (a cancel or a timeout can then cancel it) and silence is measured between events
        stream: true,
        ...(c.taskId !== undefined && { taskId: c.taskId }),
        ...(c.contextId !== undefined && { contextId: c.contextId }),
        signal: ctl.signal,
        onEvent: (ev) => {
          arm();
          c.onEvent?.(ev);
        },
      }),
  };
  const now = o.clock.now();
  const task: Task = {
    ...o.frame.task,
    workspaceId: o.workspace,
    agentId: o.frame.agent,
    dialect: 'B',
    status: { state: 'working', timestamp: new Date(now).toISOString() },
    createdAt: now,
    updatedAt: now,
  };
  arm();
  try {
    const r = await createRemoteRunner({ calls }).run({
      agent: {
        id: o.frame.agent,
        name: o.frame.agent,
        description: '',
        kind: 'remote',
        connection: o.frame.agent,
        workspace: o.workspace,
        listed: true,
        default: false,
        skills: [],
        timeoutMs: o.timeoutMs,
        options: {},
      },
      task,
      message: o.frame.message,
      signal: ctl.signal,
      onEvent: o.onEvent,
    });
    if (timedOut) return { ok: false, reason: 'local_agent_timeout', message: `the local agent was silent for ${o.timeoutMs / 1000} s` };
    if (o.signal.aborted) return { ok: false, reason: 'canceled', message: 'the turn was canceled' };
    return r.ok ? { ok: true } : { ok: false, reason: localReason(r.error.reason), message: r.error.message };
  } finally {
    cancelTimer();
    o.signal.removeEventListener('abort', onCancel);
  }
}
