// The worker runner: builtin and module agents run their turns on the Piscina pool, and their ctx.calls reach client mode.
import type { AgentRef, AgentSpec } from '../../protocol/agent-events.js';
import type { AgentPool, AgentRunOptions } from '../pool/index.js';
import { redactPaths } from '../redact.js';
import { errorText, type Log } from '../log.js';
import type { OutboundCalls } from './outbound-calls.js';
import type { AgentRunner } from './registry.js';

/** What the worker needs of a spec, made once per spec: a turn's input is copied to the worker thread. */
const refs = new WeakMap<AgentSpec, AgentRef>();
const refOf = (a: AgentSpec): AgentRef => {
  let ref = refs.get(a);
  if (!ref) {
    ref = { id: a.id, kind: a.kind, entry: a.entry, timeoutMs: a.timeoutMs, options: a.options };
    if (a.childProcesses !== undefined) ref.childProcesses = a.childProcesses;
    refs.set(a, ref);
  }
  return ref;
};

class CallFailed extends Error {
  readonly code = 'call_failed';
}

/** Binds a turn's calls to who makes them; an error without a code is a bug of ours: logged whole, shown redacted. */
function callsOf(calls: OutboundCalls, log: Log, who: { workspace: string; agentId: string }): NonNullable<AgentRunOptions['onCall']> {
  return (c) =>
    calls.call({ ...c, ...who }).catch((err: unknown) => {
      if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') throw err;
      log('agent call failed', { ...who, connection: c.connection, error: errorText(err) });
      throw new CallFailed(redactPaths(err instanceof Error ? err.message : String(err)));
    });
}

/** Without `calls` (client mode off), an agent's ctx.call fails with code 'client_mode_off'. */
export function createWorkerRunner(o: { pool: AgentPool; log: Log; calls?: OutboundCalls }): AgentRunner {
  const { calls, log } = o;
  return {
    async run({ agent, task, message, signal, onEvent }) {
      // a relay agent's turns go over its tunnel only: the pool must never be handed one
      if (agent.kind === 'relay') return { ok: false, error: { reason: 'internal_error', message: `Agent ${agent.id} runs on its relay, not here` } };
      const opts: AgentRunOptions = { signal, onEvent, timeoutMs: agent.timeoutMs };
      // builtins never call: only a module agent's turn pays for a handler (and the pool for its call key)
      if (calls && agent.kind === 'module') opts.onCall = callsOf(calls, log, { workspace: task.workspaceId, agentId: agent.id });
      const r = await o.pool.run(
        {
          agent: refOf(agent),
          task: { id: task.id, contextId: task.contextId, history: task.history, artifacts: task.artifacts, metadata: task.metadata },
          message,
        },
        opts,
      );
      if (r.ok || r.error.reason === 'canceled') return r;
      // the whole message (paths, stack) goes to the log; the task's status, which callers read, gets it redacted
      log('agent run failed', { agent: agent.id, task: task.id, reason: r.error.reason, error: r.error.message });
      return { ok: false, error: { reason: r.error.reason, message: redactPaths(r.error.message) } };
    },
  };
}
