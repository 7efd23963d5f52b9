// How much of a relay agent's card goes on: the bounds of its description and skills, and the cut that keeps a card
// within them. One rule for both ends: the relay refuses a configured card over them and cuts a discovered one's
// (LOCAL_AGENT_URL), the gateway cuts what a relay announces (a relay of an older version sends any length), logging
// what it cut, rather than refusing the relay: an over-long skill is the local agent's writing, not a broken tunnel.
import type { AgentSkill } from './agent-events.js';
import { cutCodePoints } from './summary.js';

/**
 * The longest card fields (in code points) and the most skills: 100 skills of them stay far below a frame's bound
 * and keep a card's share of the agent list, the admin UI and the stored relay record small. Each of a skill's lists
 * (tags, examples, input and output modes) keeps its first `entries`, each at most `entry` long.
 */
export const CARD_BOUNDS = { description: 2000, skills: 100 } as const;
export const SKILL_BOUNDS = { id: 256, name: 256, description: 2000, entries: 32, entry: 256 } as const;

/** A card as announced: the name is checked by the schema; the rest is bounded here. */
interface AnnouncedCard {
  name: string;
  description: string;
  skills: AgentSkill[];
  streaming: boolean;
}

const LISTS = ['tags', 'examples', 'inputModes', 'outputModes'] as const;

/** `card` within the bounds, and what was cut (empty: it was within them), in words for a log line. */
export function boundedCard<C extends AnnouncedCard>(card: C): { card: C; cuts: string[] } {
  const cuts: string[] = [];
  let fieldsCut = 0;
  const cut = (s: string, limit: number) => {
    const out = cutCodePoints(s, limit);
    if (out !== s) fieldsCut++;
    return out;
  };
  const description = cutCodePoints(card.description, CARD_BOUNDS.description);
  if (description !== card.description) cuts.push(`description cut to ${CARD_BOUNDS.description} characters`);
  if (card.skills.length > CARD_BOUNDS.skills) cuts.push(`${card.skills.length - CARD_BOUNDS.skills} skills past the first ${CARD_BOUNDS.skills} dropped`);
  const skills = card.skills.slice(0, CARD_BOUNDS.skills).map((s) => {
    const out: AgentSkill = {
      ...s,
      id: cut(s.id, SKILL_BOUNDS.id),
      name: cut(s.name, SKILL_BOUNDS.name),
      description: cut(s.description, SKILL_BOUNDS.description),
    };
    for (const k of LISTS) {
      const list = s[k];
      if (list === undefined) continue;
      if (list.length > SKILL_BOUNDS.entries) fieldsCut++;
      out[k] = list.slice(0, SKILL_BOUNDS.entries).map((e) => cut(e, SKILL_BOUNDS.entry));
    }
    return out;
  });
  if (fieldsCut > 0)
    cuts.push(
      `${fieldsCut} skill field${fieldsCut === 1 ? '' : 's'} cut (id and name to ${SKILL_BOUNDS.id}, description to ${SKILL_BOUNDS.description}, lists to ${SKILL_BOUNDS.entries} entries of ${SKILL_BOUNDS.entry})`,
    );
  return { card: cuts.length === 0 ? card : { ...card, description, skills }, cuts };
}
