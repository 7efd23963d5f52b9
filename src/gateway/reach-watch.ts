// Ends what a key keeps open on an agent's tasks once the agent's own permissions (a relay agent's permitted keys) no
// longer let the key in: as KeyWatch does for a revoked key, without waiting for the key's next request.
//
// The permissions live in the agent registry, which follows the stored relay records (every instance re-reads them),
// so a change is heard as the registry's `updated` for that agent; no store read is needed.
import type { KeyRecord } from '../protocol/records.js';
import type { AgentRegistry } from '../runtime/agents/registry.js';

/**
 * Calls `lost` once if `key` may no longer reach `agentId`'s tasks (now, or after a change of the agent); returns the
 * unregister function. An agent removed from the registry keeps its tasks readable (AgentRegistry.permits), so a
 * removal ends nothing.
 */
export function watchReach(o: { agents: AgentRegistry; key: KeyRecord; agentId: string; lost: () => void }): () => void {
  let done = false;
  const check = () => {
    if (done || o.agents.permits(o.key, o.agentId)) return;
    done = true;
    stop();
    o.lost();
  };
  const stop = o.agents.onChange((c) => {
    if (c.id === o.agentId && (c.workspace === o.key.workspaceId || c.workspace === '*')) check();
  });
  check();
  return () => {
    done = true;
    stop();
  };
}
