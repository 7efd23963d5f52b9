// The worker runner: builtin and module agents run their turns on the Piscina pool.
import type { AgentRef, AgentSpec } from '../../protocol/agent-events.js';
import type { AgentPool } from '../pool/index.js';
import { redactPaths } from '../redact.js';
import type { Log } from '../log.js';
import type { AgentRunner } from './registry.js';

/** What the worker needs of a spec, made once per spec: a turn's input is copied to the worker thread. */
const refs = new WeakMap<AgentSpec, AgentRef>();
const refOf = (a: AgentSpec): AgentRef => {
  let ref = refs.get(a);
  if (!ref) refs.set(a, (ref = { id: a.id, kind: a.kind, entry: a.entry, timeoutMs: a.timeoutMs, options: a.options }));
  return ref;
};

export function createWorkerRunner(o: { pool: AgentPool; log: Log }): AgentRunner {
  return {
    async run({ agent, task, message, signal, onEvent }) {
      const r = await o.pool.run(
        {
          agent: refOf(agent),
          task: { id: task.id, contextId: task.contextId, history: task.history, artifacts: task.artifacts, metadata: task.metadata },
          message,
        },
        { signal, onEvent, timeoutMs: agent.timeoutMs },
      );
      if (r.ok || r.error.reason === 'canceled') return r;
      // the whole message (paths, stack) goes to the log; the task's status, which callers read, gets it redacted
      o.log('agent run failed', { agent: agent.id, task: task.id, reason: r.error.reason, error: r.error.message });
      return { ok: false, error: { reason: r.error.reason, message: redactPaths(r.error.message) } };
    },
  };
}
