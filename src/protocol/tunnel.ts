// The relay tunnel's frames (relay.md "The tunnel"): one WebSocket, binary frames, msgpackr-encoded, multiplexed by a
// stream id per turn. Schemas only: both ends parse every frame they receive with these.
import { z } from 'zod';
import { AgentEvent, AgentRunInput, AgentSkill } from './agent-events.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { Message } from './model.js';
import { CARD_BOUNDS } from './relay-card-bounds.js';

export const TUNNEL_VERSION = 1;
/** The largest frame either end accepts (a turn's task snapshot travels in one). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/**
 * How deep a relay's frame may nest: an event carries its data as the relay's client took it from the local agent
 * (an answer nests at most MAX_JSON_DEPTH + 8, the client's MAX_ANSWER_DEPTH, and a frame wraps an event in fewer
 * levels than an answer wraps it). Deeper data, stored, overflows the store's encoder.
 */
export const MAX_FRAME_DEPTH = MAX_JSON_DEPTH + 8;
/** The most agents a relay announces (and so the most one health frame reports). */
export const MAX_RELAY_AGENTS = 100;
/** The tunnel's path on the gateway (a WebSocket upgrade with the relay's key as Bearer). */
export const TUNNEL_PATH = '/api/relay';

/**
 * The WebSocket close codes the gateway ends a tunnel with: part of the wire, since the relay tells its operator what
 * each means (a refused key is not retried at once; the others are).
 */
export const TUNNEL_CLOSE = { protocol: 1002, policy: 1008, tooBig: 1009, replaced: 4000, keyLapsed: 4001, goingAway: 1001, silent: 4002 } as const;

/** A local agent as the relay announces it: its name is its agent id on the gateway, in the relay's workspace. */
export const RelayAgentCard = z.object({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore'),
  description: z.string().max(CARD_BOUNDS.description).default(''),
  skills: z.array(AgentSkill).max(CARD_BOUNDS.skills).default([]),
  streaming: z.boolean().default(false),
});
export type RelayAgentCard = z.infer<typeof RelayAgentCard>;

/**
 * A card as a hello announces it: its name as above, the rest of any length or count (within the frame's bound). The
 * gateway cuts it to RelayAgentCard's bounds (`boundedCard`) and logs what it cut: a relay of an older version sends
 * its local agent's skills as written, and refusing its whole hello would keep every one of its agents offline.
 */
export const AnnouncedAgentCard = RelayAgentCard.extend({
  description: z.string().default(''),
  skills: z.array(AgentSkill).default([]),
});

/** A stream id: one per turn, chosen by the gateway. */
const Sid = z.number().int().nonnegative();

/** What the relay sends. */
export const RelayFrame = z.discriminatedUnion('t', [
  /** first frame after the upgrade: who it is and its agents ("sends agent cards at startup") */
  z.object({ t: z.literal('hello'), v: z.literal(TUNNEL_VERSION), workspace: z.string().min(1), agents: z.array(AnnouncedAgentCard).max(MAX_RELAY_AGENTS) }),
  /** one event of a turn, as the worker pool emits them */
  z.object({ t: z.literal('event'), sid: Sid, event: AgentEvent }),
  /** the turn ended well (its events were all sent before) */
  z.object({ t: z.literal('done'), sid: Sid }),
  /** the turn failed: `local_agent_timeout`, `local_agent_error`, `canceled`, ... */
  z.object({ t: z.literal('fail'), sid: Sid, reason: z.string().min(1).max(100), message: z.string().max(4000) }),
  /** local agents' health: every check that changed something (only agents its hello announced, each once at most) */
  z.object({
    t: z.literal('health'),
    agents: z
      .array(
        z.object({
          name: RelayAgentCard.shape.name,
          up: z.boolean(),
          latencyMs: z.number().nonnegative().optional(),
          error: z.string().max(1000).optional(),
        }),
      )
      .max(MAX_RELAY_AGENTS),
  }),
]);
export type RelayFrame = z.infer<typeof RelayFrame>;

/** A relay agent's local health as the gateway shows it: the last state its relay reported, and when that came in. */
export interface RelayAgentHealth {
  up: boolean;
  /** ISO time the gateway received the report (the relay reports a change, so the state holds since then) */
  checkedAt: string;
  error?: string;
}

/** The kind of a failed check, all a caller (an A2A key) reads of it: the relay's text can name local hosts and paths. */
export type RelayHealthProblem = 'timeout' | 'unreachable' | 'bad_response';

/**
 * Sorts a relay's check error into its kind by the words the relay's client uses (relays of every version send only
 * the text): a timeout, a local agent that cannot be reached, else one that answered but not with a usable card.
 */
export function healthProblem(error: string): RelayHealthProblem {
  if (/\bETIMEDOUT\b|\btimed? ?out\b|\btimeout\b/i.test(error)) return 'timeout';
  if (/cannot be reached|\bE(CONNREFUSED|CONNRESET|HOSTUNREACH|NETUNREACH|NOTFOUND|AI_AGAIN|PIPE)\b|socket hang up|fetch failed|other side closed/i.test(error))
    return 'unreachable';
  return 'bad_response';
}

/** A relay agent's health as a caller sees it: up or down, since when, and a down check's kind, never its text. */
export const callerHealth = (h: RelayAgentHealth): { up: boolean; checkedAt: string; error?: RelayHealthProblem } => ({
  up: h.up,
  checkedAt: h.checkedAt,
  ...(h.error !== undefined && { error: healthProblem(h.error) }),
});

/** The caller's dialect, as a run frame (and a turn forwarded between instances) names it. */
export const TurnDialect = z.enum(['A', 'B', 'V1']);

/** What a turn's `run` frame carries of its task: the local agent continues from its history and artifacts. */
export const RunTask = AgentRunInput.shape.task;
export type RunTask = z.infer<typeof RunTask>;

/** What the gateway sends. */
export const GatewayFrame = z.discriminatedUnion('t', [
  /** the answer to hello: the agents now registered (each with the trust level set for it on the gateway) */
  z.object({
    t: z.literal('welcome'),
    v: z.literal(TUNNEL_VERSION),
    relay: z.string(),
    agents: z.array(z.object({ name: z.string(), trust: z.string() })),
  }),
  /** run one turn of a task on a local agent */
  z.object({
    t: z.literal('run'),
    sid: Sid,
    agent: z.string().min(1),
    task: RunTask,
    message: Message,
    /** the caller streams: send events as they come */
    stream: z.boolean(),
    /** the caller's dialect (A or B), for the relay's task log; absent from older gateways */
    dialect: TurnDialect.optional(),
  }),
  /** stop a turn (the caller canceled): the local call is aborted */
  z.object({ t: z.literal('cancel'), sid: Sid }),
  /** a refusal before the gateway closes the tunnel (bad hello, protocol error); the relay logs it */
  z.object({ t: z.literal('error'), message: z.string() }),
]);
export type GatewayFrame = z.infer<typeof GatewayFrame>;
