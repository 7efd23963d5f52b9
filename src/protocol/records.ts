// Stored records other than tasks: API keys and push notification configs.
import { z } from 'zod';
import { CallerId } from './model.js';
import { Scope, TrustLevel } from './scopes.js';
import { hasControl, NO_CONTROL } from './control-chars.js';

/** The most calls a limit may allow per window (the bench's keys use it): a typo such as 1e300 is refused, not stored. */
export const MAX_RATE_LIMIT = 1_000_000_000;
/** One window's limit, wherever a limit comes in (config, CLI flags, the admin API): the one bound for all. */
const RATE_LIMIT_RANGE = `must be a whole number of calls from 1 to ${MAX_RATE_LIMIT}`;
export const RateLimit = z.number({ error: RATE_LIMIT_RANGE }).int(RATE_LIMIT_RANGE).min(1, RATE_LIMIT_RANGE).max(MAX_RATE_LIMIT, RATE_LIMIT_RANGE);
export const RateLimits = z.object({ perMinute: RateLimit, perHour: RateLimit });
export type RateLimits = z.infer<typeof RateLimits>;

export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 60, perHour: 1000 };

/** An admin key's admin API budget: room for a few dashboard tabs polling every 3 s (about 40 calls a minute each). */
export const DEFAULT_ADMIN_LIMITS: RateLimits = { perMinute: 600, perHour: 20_000 };

/**
 * Failed authentications per client address on the A2A endpoint and the relay tunnel: far above a misconfigured
 * client's retries (one a second never reaches the hour's budget), far below a guessing run.
 */
export const DEFAULT_AUTH_FAILURES: RateLimits = { perMinute: 60, perHour: 3600 };

/** Failed admin authentications per client address: a typo or two, never a guessing run. */
export const DEFAULT_ADMIN_AUTH_FAILURES: RateLimits = { perMinute: 10, perHour: 100 };

/**
 * Limits as a key record holds them: the bound of 10^9 applies where a limit comes in, not to what the store holds,
 * since earlier versions stored any whole number from 1 (a key holding more must still read, list and rotate).
 */
const StoredRateLimits = z.object({ perMinute: z.number().int().min(1), perHour: z.number().int().min(1) });

/** The longest workspace id a key, connection or relay may name: with a task id (256) it stays a valid store key. */
export const MAX_WORKSPACE_ID = 128;

/**
 * A workspace id as an operator names one (keys, connections). Never a '/': store keys join workspace and task id with
 * it, so 'ws1' would read the tasks of 'ws1/x'. Never '*': that is where agents shared by every workspace live. At
 * most 128 characters: every store key of its tasks begins with it, and LMDB refuses keys past 1,978 bytes, so a
 * longer one would make task writes fail instead of the key's creation.
 */
export const WorkspaceId = z
  .string()
  .min(1, 'give a workspace id')
  .max(MAX_WORKSPACE_ID, `at most ${MAX_WORKSPACE_ID} characters`)
  .refine((w) => !w.includes('/'), 'a workspace id has no "/"')
  .refine((w) => w !== '*', 'a workspace id is not "*" (it names the agents shared by every workspace)')
  .refine((w) => !hasControl(w), NO_CONTROL);

/**
 * A workspace a listing or a change is narrowed to (`--workspace` of list, revoke, rotate): any id the store may hold,
 * so one an earlier version took ('/' in it, past 128 characters) can still be named, and a longer one simply matches
 * nothing. Never empty (an empty filter read as "no filter" would list every workspace) and never a control or bidi
 * character (no id made today holds one: it is a slip, and a filter that matches nothing would hide it).
 */
export const WorkspaceFilter = z
  .string()
  .min(1, 'give a workspace id')
  .refine((w) => !hasControl(w), NO_CONTROL);

/** A key's label, shown by keys list and the dashboard: one printable line (a newline would forge a listing line). */
export const KeyName = z
  .string()
  .min(1)
  .max(100, 'at most 100 characters')
  .refine((n) => !hasControl(n), NO_CONTROL);

/** An API key as stored: only the HMAC of the key, never the key. */
export const KeyRecord = z.object({
  id: z.string(),
  hash: z.string(),
  name: z.string().optional(),
  workspaceId: z.string().min(1),
  trust: TrustLevel,
  /** explicit scopes; empty means the trust level's whole bundle */
  scopes: z.array(Scope),
  /** agent ids this key may reach; empty means every agent of its workspace */
  agents: z.array(z.string()),
  limits: StoredRateLimits.optional(),
  createdAt: z.number(),
  expiresAt: z.number().nullable(),
  revokedAt: z.number().nullable(),
  rotatedFrom: z.string().optional(),
  /** the key its latest rotation made (rotating writes it, so that a rotation racing another one is refused) */
  rotatedTo: z.string().optional(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

/** The view of a key that may be shown (spec: scopes, trust level, expires_at, revoked status). */
export function publicKeyView(k: KeyRecord) {
  return {
    id: k.id,
    name: k.name,
    workspace: k.workspaceId,
    trust: k.trust,
    scopes: k.scopes,
    agents: k.agents,
    limits: k.limits,
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    revoked: k.revokedAt !== null,
    created_at: new Date(k.createdAt).toISOString(),
  };
}

/** The longest value the gateway sends as a webhook header (receivers refuse header blocks past 8–16 KiB). */
export const MAX_HEADER_VALUE = 4096;

/** What an HTTP header value may hold, as this service sends one: printable ASCII and tab. */
export const HEADER_TEXT = /^[\x20-\x7e\t]*$/;
export const HEADER_TEXT_RULE = 'must be printable ASCII: it is sent as an HTTP header';

/**
 * A caller's value that every delivery sends as an HTTP header (the notification token, a bearer credential). HTTP
 * has no way to carry a line break or a character outside Latin-1 there, so such a value could never be delivered:
 * each webhook would fail until given up. It is refused when the config is registered instead.
 */
export const HeaderValue = z.string().max(MAX_HEADER_VALUE, `at most ${MAX_HEADER_VALUE} characters`).regex(HEADER_TEXT, HEADER_TEXT_RULE);

/**
 * The longest webhook URL taken, as sent and as the request line will carry it (a non-ASCII path is percent-encoded,
 * a non-ASCII host punycoded, so the written form can be several times longer): servers refuse request lines past
 * 8 KiB, so a longer one would fail every delivery.
 */
export const MAX_PUSH_URL = 4096;

/** Credentials in a URL (`https://user:pass@host/`) are shown to every reader of the config: refused, not stored. */
function pushUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined; // the SSRF guard names it: "not an absolute URL"
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not carry credentials (user:password@): every read of the config shows its URL; give them as token or authentication.credentials, which are sealed and never shown';
  }
  if (url.href.length > MAX_PUSH_URL) return `at most ${MAX_PUSH_URL} characters once written as sent (percent-encoded: ${url.href.length})`;
  return undefined;
}

/** A webhook URL as a caller registers it; the SSRF guard then judges its scheme and address. */
export const PushUrl = z
  .string()
  .min(1)
  .max(MAX_PUSH_URL, `at most ${MAX_PUSH_URL} characters`)
  .superRefine((raw, ctx) => {
    const problem = pushUrlProblem(raw);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Authentication schemes a config may list, and how long a scheme name may be (HTTP's are a word: Bearer, Basic). */
export const MAX_PUSH_SCHEMES = 16;
export const MAX_PUSH_SCHEME_LENGTH = 64;
export const PushScheme = z.string().max(MAX_PUSH_SCHEME_LENGTH, `at most ${MAX_PUSH_SCHEME_LENGTH} characters`);
export const PushAuthentication = z.object({
  schemes: z.array(PushScheme).max(MAX_PUSH_SCHEMES, `at most ${MAX_PUSH_SCHEMES} schemes`),
  credentials: HeaderValue.optional(),
});

/** A push notification config as the caller gives it (protocol.md). */
export const PushConfig = z.object({
  id: CallerId.optional(),
  url: PushUrl,
  token: HeaderValue.optional(),
  authentication: PushAuthentication.optional(),
});
export type PushConfig = z.infer<typeof PushConfig>;

export const StoredPushConfig = PushConfig.extend({
  // stored sealed (longer than what was given) and possibly by a build that did not check them: read as they are
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: z.object({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
  id: z.string().min(1),
  taskId: z.string(),
  /** the key that registered it: deliveries carry what that key may read, and stop when it is revoked */
  keyId: z.string().optional(),
  createdAt: z.number(),
  disabled: z.boolean().default(false),
  /** `token` and `authentication.credentials` hold sealed values (runtime/push/config-secrets.ts) */
  sealed: z.literal(true).optional(),
});
export type StoredPushConfig = z.infer<typeof StoredPushConfig>;

/**
 * One webhook delivery waiting in the store. Jobs of one queue (a task and one of its configs) are
 * delivered strictly in `seq` order; `id` is the Standard Webhooks `webhook-id`, the same on every
 * retry, so a receiver can drop duplicates. `body` is the sanitized Task JSON as it stood at that update.
 */
export const PushJob = z.object({
  id: z.string().min(1),
  queue: z.string().min(1),
  seq: z.number().int().nonnegative(),
  taskKey: z.string().min(1),
  configId: z.string().min(1),
  workspaceId: z.string().min(1),
  /** the task's agent: a delivery stops once the agent's own permissions no longer let the config's key in */
  agentId: z.string().min(1).optional(),
  body: z.string(),
  attempts: z.number().int().nonnegative(),
  /** when the next attempt may start (ms since the epoch) */
  dueAt: z.number(),
  createdAt: z.number(),
  lastError: z.string().optional(),
});
export type PushJob = z.infer<typeof PushJob>;
