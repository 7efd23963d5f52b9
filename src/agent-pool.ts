// The agent worker pool a config asks for: its thread counts, each worker's heap cap and a task's output cap, and the
// operator's line (said once per agent and kinds) when an agent's worker is replaced after a turn.
import type { Config } from './config/schema.js';
import type { Log } from './runtime/log.js';
import { createAgentPool, type AgentPool } from './runtime/pool/index.js';
import { SaidOnce } from './runtime/said-once.js';

export function createGatewayPool(o: { config: Config; log: Log }): AgentPool {
  const { config, log } = o;
  const recycleSaid = new SaidOnce(1000);
  // two warm threads at least: an agent that holds one (a long or busy run) never makes the next run wait for a
  // cold thread start (a second or more under load)
  const minThreads = config.pool.minThreads ?? 2;
  return createAgentPool({
    minThreads,
    maxThreads: Math.max(minThreads, config.pool.maxThreads ?? 4),
    maxHeapMb: config.pool.maxHeapMb,
    maxOutputBytes: config.tasks.maxTaskBytes,
    // an agent that leaves a timer in every turn costs a thread start per turn: the operator is told once what it leaves
    onRecycle: ({ agentId, left }) => {
      if (recycleSaid.first(`${agentId}\n${left.join('\n')}`))
        log('agent worker replaced after a turn: the agent left something running or changed in it (said once per agent and kinds)', { agent: agentId, left });
    },
  });
}
