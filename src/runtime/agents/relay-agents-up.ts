// The relay agents' gauge for /metrics: those that take turns now and those that do not.
import type { AgentRegistry } from './registry.js';

/** Relay agents that take turns now (relay connected, local agent not reported down) and those that do not. */
export function relayAgentsUp(agents: AgentRegistry): { up: number; down: number } {
  let up = 0;
  let down = 0;
  for (const a of agents.specs) {
    if (a.kind !== 'relay') continue;
    if (agents.online(a.workspace, a.id) && agents.health(a.workspace, a.id)?.up !== false) up++;
    else down++;
  }
  return { up, down };
}
