// What the admin UI's live stream tells of a local agent: its summary (name, health, counts, what its card is in a few
// fields), never the card itself. 100 agents of 100 skills are megabytes of cards (up to the 4 MiB a hello carries),
// which were written whole into this process's memory for each page on every connect. The page reads one agent's
// card when it is asked for (GET /api/agents/NAME); the descriptions (up to 2,000 characters each) follow the opening
// snapshot one agent per event, paced by what the reader takes.
import type { RelayAgentCard } from '../../src/protocol/tunnel.js';

/** A local agent as the admin UI keeps it: health, counts, and its card as the relay announced it. */
export interface AgentView {
  name: string;
  url: string;
  card: RelayAgentCard | undefined;
  health: 'up' | 'down' | 'unknown';
  lastCheck: number | undefined;
  latencyMs: number | undefined;
  error: string | undefined;
  errorWords: string | undefined;
  served: number;
  failed: number;
}

export interface AgentSummary extends Omit<AgentView, 'card'> {
  /** the card's description ('' when it has none, or no card yet); absent from the opening snapshot, sent just after */
  description?: string;
  skillCount: number;
  streaming: boolean;
  /** counts the agent's card changes: a page showing the card reads it again when this moves */
  cardRev: number;
}

/** An agent as the live stream tells it; `withDescription: false` for the opening snapshot (its descriptions follow). */
export function summaryOf(a: AgentView, cardRev: number, o: { withDescription: boolean }): AgentSummary {
  const { card, ...rest } = a;
  return {
    ...rest,
    ...(o.withDescription && { description: card?.description ?? '' }),
    skillCount: card?.skills.length ?? 0,
    streaming: card?.streaming ?? false,
    cardRev,
  };
}
