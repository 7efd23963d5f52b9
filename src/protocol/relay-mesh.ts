// What gateway instances on one Redis tell each other about relays (issue 9: "a task for a relay agent reaches the
// instance holding that relay's tunnel"): who holds which tunnel, and turns forwarded to the holder. Schemas only.
import { z } from 'zod';
import { AgentEvent } from './agent-events.js';
import { Message } from './model.js';
import { RunTask, TurnDialect } from './tunnel.js';

/** One relay: a workspace and the relay's name in it. */
const RelayId = { workspace: z.string().min(1), relay: z.string().min(1) };

/** An instance's address: the event bus's origin, unique per process run. */
const From = z.string().min(1);

/** A turn forwarded by the instance that runs its task to the one holding the relay's tunnel. */
export const ForwardedTurn = z.object({
  ...RelayId,
  agent: z.string().min(1),
  timeoutMs: z.number().int().positive(),
  task: RunTask,
  message: Message,
  stream: z.boolean(),
  dialect: TurnDialect.optional(),
});
export type ForwardedTurn = z.infer<typeof ForwardedTurn>;

export const MeshMessage = z.discriminatedUnion('t', [
  /**
   * A holder's tunnel of one relay, sent to every instance when it opens, when its agents' health changes, and as a
   * lease renewal: an instance that hears none for a while takes the relay as gone (its holder may have died).
   */
  z.object({
    t: z.literal('held'),
    from: From,
    ...RelayId,
    /** when the tunnel opened (the holder's clock): of two instances holding one relay, the later tunnel wins */
    since: z.number(),
    /** a digest of the relay record's agent settings as the holder registered them: another one means re-read the record */
    settings: z.string().max(100),
    /** the agents the tunnel serves, in the holder's registry */
    agents: z.array(z.string().min(1)).max(100),
    health: z.array(z.object({ name: z.string().min(1), up: z.boolean(), checkedAt: z.string(), error: z.string().max(1000).optional() })).max(100),
  }),
  /** the holder's tunnel ended */
  z.object({ t: z.literal('released'), from: From, ...RelayId, since: z.number() }),
  /** an instance that starts asks the holders to say what they hold */
  z.object({ t: z.literal('who'), from: From }),
  /**
   * a key was revoked on the sender: whatever it holds open here (a relay's tunnel, streams) is checked now, not at
   * the next key check (design/relay.md: "revoking the key closes a live tunnel at once")
   */
  z.object({ t: z.literal('lapsed'), from: From, keyId: z.string().min(1).max(200) }),
  /** relay records were changed on the sender (added, removed, an agent's settings): re-read them now */
  z.object({ t: z.literal('relays'), from: From }),
  /** to the holder: run a turn (`rid` is the sender's id for it) */
  z.object({ t: z.literal('run'), from: From, rid: z.number().int().nonnegative(), turn: ForwardedTurn }),
  /** to the holder: the turn's caller canceled */
  z.object({ t: z.literal('cancel'), from: From, rid: z.number().int().nonnegative() }),
  /** to the sender: one event of a forwarded turn */
  z.object({ t: z.literal('event'), rid: z.number().int().nonnegative(), event: AgentEvent }),
  /** to the sender: how the forwarded turn ended */
  z.object({
    t: z.literal('end'),
    rid: z.number().int().nonnegative(),
    result: z.discriminatedUnion('ok', [z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), reason: z.string().min(1), message: z.string() })]),
  }),
]);
export type MeshMessage = z.infer<typeof MeshMessage>;
