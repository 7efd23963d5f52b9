// Outbound connections (client mode): their settings, credentials, live status and stored results. Schemas only.
import { z } from 'zod';
import { Artifact, Dialect, Message, TaskStatus } from './model.js';
import { HEADER_TEXT, HEADER_TEXT_RULE } from './records.js';
import { TrustLevel } from './scopes.js';

/** A connection's name: it names the connection in the CLI, in `ctx.call` and in a `remote` agent's config. */
export const ConnectionName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore');

export const CredentialKind = z.enum(['none', 'apikey', 'bearer', 'oauth', 'mtls']);
export type CredentialKind = z.infer<typeof CredentialKind>;

const Pem = z.string().min(1).includes('-----BEGIN', { message: 'must be PEM text (-----BEGIN ...)' });

/** The secrets of a connection: stored only sealed (AES-256-GCM), never shown, never logged. */
export const Credentials = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  z
    .object({
      kind: z.literal('apikey'),
      header: z
        .string()
        .min(1)
        .regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name')
        .default('X-API-Key'),
      value: z.string().min(1),
    })
    .strict(),
  z.object({ kind: z.literal('bearer'), token: z.string().min(1) }).strict(),
  z
    .object({
      kind: z.literal('oauth'),
      tokenUrl: z.url(),
      clientId: z.string().min(1),
      clientSecret: z.string().min(1),
      scope: z.string().min(1).optional(),
    })
    .strict(),
  z.object({ kind: z.literal('mtls'), cert: Pem, key: Pem, ca: Pem.optional() }).strict(),
]);
export type Credentials = z.infer<typeof Credentials>;
export type CredentialsInput = z.input<typeof Credentials>;

/**
 * Credentials as a connection is given them (added or updated): an API key or a bearer token goes out as an HTTP
 * header on every call, so one holding a line break or a character outside printable ASCII could never be sent (Node
 * refuses it, and every call failed as if the remote could not be reached). Stored ones are read as they are.
 */
export const GivenCredentials = Credentials.superRefine((c, ctx) => {
  const sent = c.kind === 'apikey' ? { path: 'value', v: c.value } : c.kind === 'bearer' ? { path: 'token', v: c.token } : undefined;
  if (sent && !HEADER_TEXT.test(sent.v)) ctx.addIssue({ code: 'custom', message: HEADER_TEXT_RULE, path: [sent.path] });
});

/** The categories of data a message may carry out: a part's kind. */
export const DataCategory = z.enum(['text', 'data', 'file']);
export type DataCategory = z.infer<typeof DataCategory>;

/** What a connection's trust level lets an agent do over it (spec: the same levels as keys). */
export const ConnectionOp = z.enum(['get', 'send', 'cancel', 'stream']);
export type ConnectionOp = z.infer<typeof ConnectionOp>;

const TRUST_OPS: Record<TrustLevel, readonly ConnectionOp[]> = {
  read_only: ['get'],
  execute: ['get', 'send'],
  autonomous: ['get', 'send', 'cancel'],
  admin: ['get', 'send', 'cancel', 'stream'],
};
export const trustAllows = (trust: TrustLevel, op: ConnectionOp): boolean => TRUST_OPS[trust].includes(op);

/** The longest a stored result may be kept: 10 years (a longer one is a slip, and past a safe expiry time at 10^12). */
export const MAX_RESULT_RETENTION_HOURS = 87_600;

/** The same bound in ms, for the gateway's own retention settings (retention.taskTtlMs): one bound for everything kept. */
export const MAX_RETENTION_MS = MAX_RESULT_RETENTION_HOURS * 3_600_000;

/** The retention a connection is given or changed to (the stored field stays unbounded: records kept before read). */
export const ResultRetentionHoursInput = z.number().positive().max(MAX_RESULT_RETENTION_HOURS, `at most ${MAX_RESULT_RETENTION_HOURS} hours (10 years)`);

/** How many other origins a connection may allow its card to name (a few API hosts; more is a slip). */
export const MAX_ALLOWED_ORIGINS = 16;

/**
 * An origin (`scheme://host[:port]`, http or https, as `new URL(...).origin` writes it) besides the connection URL's
 * own to which its calls may go when the remote's card names a JSON-RPC endpoint there (docs/decisions.md).
 */
export const CallOrigin = z
  .string()
  .max(2048, 'at most 2048 characters')
  .superRefine((v, ctx) => {
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      u = undefined;
    }
    if (u === undefined || (u.protocol !== 'http:' && u.protocol !== 'https:'))
      ctx.addIssue({ code: 'custom', message: 'must be an http(s) origin such as https://api.example.com' });
    else if (u.origin !== v) ctx.addIssue({ code: 'custom', message: `must be an origin alone (scheme://host[:port]): ${u.origin}` });
  });

/** The settings a connection is made or updated with (everything but its secrets). */
export const ConnectionSettings = z.object({
  workspace: z.string().min(1),
  name: ConnectionName,
  /** the remote agent's base URL: its card is under `/.well-known/`, its JSON-RPC endpoint is what the card names */
  url: z.url(),
  /** the dialect to speak: `auto` reads it from the remote's card (a JSON-RPC 1.0 interface: V1; protocolVersion 0.2/0.3: B; none or 0.1: A) */
  dialect: z.enum(['auto', 'A', 'B', 'V1']).default('auto'),
  storeResults: z.boolean().default(false),
  allowedDataTypes: z.array(DataCategory).min(1).default(['text', 'data', 'file']),
  resultRetentionHours: z.number().positive().default(168),
  trust: TrustLevel.default('execute'),
  /** ids of the service's own agents that may use it; empty means every agent of the workspace */
  agents: z.array(z.string().min(1)).default([]),
  /**
   * other origins the remote's card may name for its JSON-RPC endpoint: calls carry the connection's credentials, so
   * by default they go to the URL's own origin only (docs/decisions.md)
   */
  allowedOrigins: z.array(CallOrigin).max(MAX_ALLOWED_ORIGINS, `at most ${MAX_ALLOWED_ORIGINS} origins`).default([]),
});
export type ConnectionSettings = z.infer<typeof ConnectionSettings>;

/** A connection as stored: settings, the credential kind in clear, the credentials sealed. */
export const ConnectionRecord = ConnectionSettings.extend({
  id: z.string().min(1),
  credentialKind: CredentialKind,
  /** the Credentials object, sealed with the server secret's derived key (base64 of iv, tag and ciphertext) */
  sealed: z.string().min(1),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ConnectionRecord = z.infer<typeof ConnectionRecord>;

/** The view of a connection that may be shown (spec: the settings and the credential kind, nothing else). */
export function publicConnectionView(c: ConnectionRecord) {
  return {
    id: c.id,
    workspace: c.workspace,
    name: c.name,
    url: c.url,
    dialect: c.dialect,
    auth: c.credentialKind,
    store_results: c.storeResults,
    allowed_data_types: c.allowedDataTypes,
    result_retention_hours: c.resultRetentionHours,
    trust: c.trust,
    agents: c.agents,
    allowed_origins: c.allowedOrigins,
    created_at: new Date(c.createdAt).toISOString(),
    updated_at: new Date(c.updatedAt).toISOString(),
  };
}

/** The states of a connection's supervised actor. */
export const ConnectionState = z.enum(['discovering', 'ready', 'backing-off', 'circuit-open', 'half-open', 'stopped']);
export type ConnectionState = z.infer<typeof ConnectionState>;

/** What a connection's actor last said of itself: written to the store so `connections status` can read it from another process. */
export const ConnectionStatus = z.object({
  state: ConnectionState,
  /** consecutive failures (discovery or calls) */
  failures: z.number().int().nonnegative(),
  lastError: z.string().optional(),
  /** when the next discovery attempt or half-open probe is due (ms since the epoch) */
  nextRetryAt: z.number().optional(),
  /** the remote's dialect, once its card was read */
  dialect: Dialect.optional(),
  /** the remote card's name, once read */
  remoteName: z.string().optional(),
  updatedAt: z.number(),
});
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** A remote task as the client reads it back, in the internal model (whatever the remote's dialect). */
export const RemoteTask = z.object({
  id: z.string(),
  contextId: z.string().optional(),
  status: TaskStatus,
  artifacts: z.array(Artifact),
  history: z.array(Message).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type RemoteTask = z.infer<typeof RemoteTask>;

/** What a remote task streams, in the internal model: the A2A client's `onEvent`, and a module agent's `ctx.call` stream. */
export const RemoteEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('task'), task: RemoteTask }),
  // contextId: the context the remote says the event's task is in (checked against the task's, a2a-client/belongs.ts)
  z.object({ kind: z.literal('status'), taskId: z.string(), contextId: z.string().optional(), status: TaskStatus, final: z.boolean() }),
  z.object({ kind: z.literal('artifact'), taskId: z.string(), contextId: z.string().optional(), artifact: Artifact }),
]);
export type RemoteEvent = z.infer<typeof RemoteEvent>;

/** One outbound call's result as kept: a summary always, the raw task only when the connection stores results. */
export const StoredResult = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  connection: ConnectionName,
  /** the agent of ours that made the call (absent for `a2a-gateway call`) */
  agentId: z.string().optional(),
  remoteTaskId: z.string(),
  state: z.string(),
  /** at most 500 characters (text parts first, other parts described by kind and size) */
  summary: z.string(),
  raw: RemoteTask.optional(),
  createdAt: z.number(),
  /** createdAt + the connection's result_retention_hours: the sweeper deletes it then */
  expiresAt: z.number(),
});
export type StoredResult = z.infer<typeof StoredResult>;

/** The first part of a message whose category the connection does not allow out, if any (the whole message is then refused). */
export function refusedPart(parts: ReadonlyArray<{ kind: string }>, allowed: readonly DataCategory[]): { index: number; kind: string } | undefined {
  for (let i = 0; i < parts.length; i++) {
    const kind = parts[i]!.kind;
    if (!(allowed as readonly string[]).includes(kind)) return { index: i, kind };
  }
  return undefined;
}
