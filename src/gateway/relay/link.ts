// One relay as the hub keeps it across its connections (its link), and how its announced agents go into the agent
// registry: which cards it may register (no repeats, no shadowing) and the registry entries they become, capped by
// the trust and keys the relay record sets per agent.
import { createHash } from 'node:crypto';
import { AgentSpec, type AgentRunResult } from '../../protocol/agent-events.js';
import type { KeyRecord } from '../../protocol/records.js';
import { DEFAULT_RELAY_AGENT_TRUST, type RelayRecord } from '../../protocol/relays.js';
import { TRUST_SCOPES } from '../../protocol/scopes.js';
import { boundedCard } from '../../protocol/relay-card-bounds.js';
import type { RelayAgentCard, RelayAgentHealth } from '../../protocol/tunnel.js';
import { AgentShadowError, type AgentRegistry, type AgentRunner, type AgentTurn } from '../../runtime/agents/registry.js';
import type { TunnelSession } from './tunnel-session.js';

/** What registering needs: the registry, a log, and how the hub tells a link's online state and an agent's health. */
export interface LinkDeps {
  agents: AgentRegistry;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  online: (link: RelayLink) => boolean;
  health: (link: RelayLink, agent: string) => RelayAgentHealth | undefined;
}

/** Another instance's tunnel of a relay, as its holder last told. */
export interface RemoteHold {
  from: string;
  since: number;
  seenAt: number;
  health: Map<string, RelayAgentHealth>;
}

/** One registered relay across its connections: the agents it holds in the registry and its live session, if any. */
export class RelayLink {
  session: TunnelSession | undefined;
  /** the key that opened the live session: a record that names another key no longer lets it serve */
  sessionKeyId: string | undefined;
  /** the tunnel another instance holds, when this one holds none */
  remote: RemoteHold | undefined;
  /** the relay record's agent settings (settingsOf) when its agents were last registered here */
  settings = '';
  /** agent name -> its last announced card */
  readonly cards = new Map<string, RelayAgentCard>();
  /** agent name -> its local agent's health as the live session last reported it (cleared when the session ends) */
  readonly health = new Map<string, RelayAgentHealth>();
  readonly runner: AgentRunner;

  constructor(
    readonly workspace: string,
    readonly name: string,
    run: (link: RelayLink, turn: AgentTurn) => Promise<AgentRunResult>,
  ) {
    this.runner = { run: (turn) => run(this, turn) };
  }
}

export const linkKey = (workspace: string, name: string) => `${workspace}/${name}`;
/** What a record says of its agents' trust and keys, in short: two instances compare it to see a change. */
export const settingsOf = (rec: RelayRecord) =>
  createHash('sha256')
    .update(
      JSON.stringify(
        Object.keys(rec.agents)
          .sort()
          .map((n) => [n, rec.agents[n]!.trust, rec.agents[n]!.keys]),
      ),
    )
    .digest('base64url')
    .slice(0, 22);
/** A record's announced cards, within the cards' bounds (a record stored by an older gateway may hold longer ones). */
export const storedCards = (rec: RelayRecord, names: readonly string[] = Object.keys(rec.agents)) =>
  names.flatMap((n) => {
    const card = rec.agents[n]?.card;
    return card ? [boundedCard(card).card] : [];
  });

/** The announced cards this link may register: no repeats, none that would shadow an agent it does not own. */
export function acceptableCards(d: LinkDeps, link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[] {
  const out: RelayAgentCard[] = [];
  const seen = new Set<string>();
  for (const c of cards) {
    if (seen.has(c.name)) {
      d.log('relay agent refused: announced twice', { workspace: rec.workspace, relay: rec.name, agent: c.name });
      continue;
    }
    seen.add(c.name);
    const existing = d.agents.find(rec.workspace, c.name);
    if (existing && existing.runner !== link.runner) {
      d.log('relay agent refused: it would shadow another agent', { workspace: rec.workspace, relay: rec.name, agent: c.name });
      continue;
    }
    out.push(c);
  }
  return out;
}

/** Puts the cards in the registry as this link's agents (and takes out its agents no longer announced). */
export function registerCards(d: LinkDeps, link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[] {
  link.settings = settingsOf(rec);
  const names = new Set(cards.map((c) => c.name));
  for (const old of [...link.cards.keys()]) {
    if (names.has(old)) continue;
    d.agents.remove(rec.workspace, old);
    link.cards.delete(old);
  }
  const done: RelayAgentCard[] = [];
  for (const card of cards) {
    const allowed = rec.agents[card.name]?.keys ?? [];
    const trust = rec.agents[card.name]?.trust ?? DEFAULT_RELAY_AGENT_TRUST;
    const spec = AgentSpec.parse({
      id: card.name,
      name: card.name,
      description: card.description,
      kind: 'relay',
      workspace: rec.workspace,
      skills: card.skills,
    });
    const entry = {
      spec,
      runner: link.runner,
      reach: (key: KeyRecord) => allowed.length === 0 || allowed.includes(key.id),
      online: () => d.online(link),
      health: () => d.health(link, card.name),
      scopes: new Set(TRUST_SCOPES[trust]),
    };
    try {
      if (link.cards.has(card.name)) d.agents.update(entry);
      else d.agents.add(entry);
    } catch (e) {
      if (!(e instanceof AgentShadowError)) throw e;
      d.log('relay agent refused: it would shadow another agent', { workspace: rec.workspace, relay: rec.name, agent: card.name });
      continue;
    }
    link.cards.set(card.name, card);
    done.push(card);
  }
  return done;
}
