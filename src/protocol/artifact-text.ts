// An artifact's `name` and `description` as the gateway keeps them from any agent that is not a caller: a remote A2A
// agent (client mode), a module agent on the pool, a relay's local agent over its tunnel. Words for people, so cut.
import { z } from 'zod';
import { cutCodePoints } from './summary.js';

/**
 * The longest artifact `name` and `description` kept, in code points: the name as a skill's name is bounded on a
 * relay's card (SKILL_BOUNDS), the description as a card's. They are words for people, not names of anything (the
 * artifact is named by its id), so a longer one is cut (its last kept code point `…`), as a remote's error message
 * is, and the answer stands; an id past its bound is refused instead. Only an answer's or a task's size bounded them
 * before: a megabyte name was stored, shown on every read, sent to webhooks.
 */
export const ARTIFACT_TEXT = { name: 256, description: 2000 } as const;
export const ArtifactName = z.string().transform((s) => cutCodePoints(s, ARTIFACT_TEXT.name));
export const ArtifactDescription = z.string().transform((s) => cutCodePoints(s, ARTIFACT_TEXT.description));
