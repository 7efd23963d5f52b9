// Connection administration, the one module the CLI and the JSON admin API call: add, list, show, status, update, remove;
// and opening a connection's credentials for the runtime. Secrets go in sealed and never come out in a view or an error.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentId } from '../protocol/agent-events.js';
import {
  type ConnectionRecord,
  type ConnectionStatus,
  ConnectionSettings,
  Credentials,
  GivenCredentials,
  publicConnectionView,
  ResultRetentionHoursInput,
} from '../protocol/connections.js';
import { listedOnce } from '../protocol/listed-once.js';
import { WorkspaceId } from '../protocol/records.js';
import type { Clock } from './clock.js';
import { type Allowlist, checkUrl, type Resolve, systemResolve } from './net/guard.js';
import { pemPairProblem } from './net/pem-pair.js';
import { type SecretBox, SecretBoxError, secretBox } from './secret-box.js';
import { readOrDamaged, type RemovedDamaged } from './store/errors.js';
import type { ConnectionStore } from './store/types.js';
import { updateVersioned } from './store/versioned.js';
import { firstIssue } from '../protocol/input-issue.js';

export type ConnectionAdminErrorCode =
  /** a setting or credential is missing or invalid (`field` names it) */
  | 'ERR_CONNECTION_INPUT'
  /** the URL (or the OAuth token URL) is refused by the SSRF guard */
  | 'ERR_CONNECTION_URL_REFUSED'
  /** a connection of that name already exists in the workspace */
  | 'ERR_CONNECTION_EXISTS'
  | 'ERR_CONNECTION_NOT_FOUND'
  /** the stored credentials do not open (another server secret, or a damaged record) */
  | 'ERR_CONNECTION_CREDENTIALS';

export class ConnectionAdminError extends Error {
  constructor(
    readonly code: ConnectionAdminErrorCode,
    message: string,
    /** the setting at fault, as the views name it (e.g. `allowed_data_types`, `credentials.client_secret`) */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ConnectionAdminError';
  }
}

export interface ConnectionAdminDeps {
  connections: ConnectionStore;
  /** the server secret: the credentials' sealing key is derived from it */
  secret: Buffer;
  clock: Clock;
  /** internal addresses a connection may reach anyway: the webhooks' setting, config `push.allowlist` */
  allowlist: Allowlist;
  /** DNS for the URL check; the system resolver by default */
  resolve?: Resolve;
}

const S = ConnectionSettings.shape;

/** What an add or an update is given, checked more than what is stored (a record kept before still reads). */
const Given = {
  resultRetentionHours: ResultRetentionHoursInput,
  allowedDataTypes: listedOnce(S.allowedDataTypes.removeDefault()),
  // the ids of agents it serves, by the rule every agent id follows: any other name reaches no agent, and one with a
  // control or bidi character would make `connections list` show another name than the one stored
  agents: listedOnce(z.array(AgentId)),
  allowedOrigins: listedOnce(S.allowedOrigins.removeDefault()),
};

/** No credentials means auth `none` (as the CLI's default --auth). */
export const AddConnectionInput = ConnectionSettings.extend({
  workspace: WorkspaceId,
  credentials: GivenCredentials.default({ kind: 'none' }),
  resultRetentionHours: Given.resultRetentionHours.default(168),
  allowedDataTypes: Given.allowedDataTypes.default(['text', 'data', 'file']),
  agents: Given.agents.default([]),
  allowedOrigins: Given.allowedOrigins.default([]),
}).strict();
export type AddConnectionInput = z.input<typeof AddConnectionInput>;

/** What an update may change: any setting but the workspace and the name (absent fields keep their value, no defaults). */
export const ConnectionPatch = z
  .object({
    url: S.url,
    dialect: S.dialect.removeDefault(),
    storeResults: S.storeResults.removeDefault(),
    allowedDataTypes: Given.allowedDataTypes,
    resultRetentionHours: Given.resultRetentionHours,
    trust: S.trust.removeDefault(),
    agents: Given.agents,
    allowedOrigins: Given.allowedOrigins,
  })
  .partial()
  .strict();

export const UpdateConnectionInput = z
  .object({
    workspace: WorkspaceId,
    name: S.name,
    settings: ConnectionPatch.default({}),
    /**
     * Credentials of the connection's kind may be given in part (the rest is kept, e.g. only a new client secret);
     * a new `kind` needs all of that kind's credentials.
     */
    credentials: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type UpdateConnectionInput = z.input<typeof UpdateConnectionInput>;

const ConnectionRef = z.object({ workspace: WorkspaceId, name: S.name }).strict();
export type ConnectionRef = z.input<typeof ConnectionRef>;

/** The names the views and the spec use for the settings (a field in an error reads like the output). */
const PUBLIC_NAME: Record<string, string> = {
  storeResults: 'store_results',
  allowedDataTypes: 'allowed_data_types',
  resultRetentionHours: 'result_retention_hours',
  tokenUrl: 'token_url',
  clientId: 'client_id',
  clientSecret: 'client_secret',
  allowedOrigins: 'allowed_origins',
};

/** A setting's name in an error: an update's `settings` group is left out (the field is `trust`, as in the views). */
const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  (path[0] === 'settings' ? path.slice(1) : path)
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${PUBLIC_NAME[String(p)] ?? String(p)}`))
    .join('') || 'input';

function parsed<T>(schema: z.ZodType<T>, input: unknown, prefix: readonly string[] = []): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = firstIssue(r.error);
  const field = fieldOf([...prefix, ...issue.path]);
  const message = issue.message;
  throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `${field}: ${message}`, field);
}

/** Checks an add's input without touching anything (a caller may check before it opens the store); addConnection checks it too. */
export const parseAddInput = (input: unknown) => parsed(AddConnectionInput, input);
/** The same for an update (what can be checked without the stored record), an update that changes nothing included. */
export function parseUpdateInput(input: unknown) {
  const u = parsed(UpdateConnectionInput, input);
  if (Object.keys(u.settings).length === 0 && u.credentials === undefined) {
    throw new ConnectionAdminError('ERR_CONNECTION_INPUT', 'update: nothing to change (give a setting or credentials)');
  }
  return u;
}
/** The same for the connection a show, status or remove names. */
export const parseConnectionRef = (input: unknown) => parsed(ConnectionRef, input);

/** The public view of what a connection's actor last reported. */
export function publicStatusView(s: ConnectionStatus) {
  return {
    state: s.state,
    failures: s.failures,
    last_error: s.lastError ?? null,
    next_retry_at: s.nextRetryAt === undefined ? null : new Date(s.nextRetryAt).toISOString(),
    dialect: s.dialect ?? null,
    remote_name: s.remoteName ?? null,
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

export type ConnectionView = ReturnType<typeof publicConnectionView>;
/** `status` is null until a server has loaded the connection and its actor reported. */
export type ConnectionStatusView = ConnectionView & { status: ReturnType<typeof publicStatusView> | null };

const boxes = new WeakMap<Buffer, SecretBox>();
function boxFor(secret: Buffer): SecretBox {
  let b = boxes.get(secret);
  if (!b) boxes.set(secret, (b = secretBox({ secret, purpose: 'connection-credentials' })));
  return b;
}

/** A connection URL must pass the SSRF guard now (every connect checks again) and carry no credentials of its own. */
async function guardUrl(deps: GuardDeps, field: string, raw: string): Promise<void> {
  const u = new URL(raw);
  if (u.username !== '' || u.password !== '')
    throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `${field}: must not carry a user name or password (give credentials with the auth settings)`, field);
  const v = await checkUrl(raw, { allowlist: deps.allowlist, resolve: deps.resolve ?? systemResolve, what: field });
  if (v.ok) return;
  const hint = v.refusal.reason === 'address' ? ' (an internal address is admitted only when push.allowlist in the config holds it)' : '';
  throw new ConnectionAdminError('ERR_CONNECTION_URL_REFUSED', `${v.refusal.message}${hint}`, field);
}

/** The other origins a card may name pass the same guard (each call is checked again, as the URL's are). */
async function guardOrigins(deps: GuardDeps, origins: readonly string[]): Promise<void> {
  for (const [i, o] of origins.entries()) await guardUrl(deps, `allowed_origins[${i}]`, o);
}

async function guardCredentialUrls(deps: GuardDeps, c: Credentials): Promise<void> {
  if (c.kind === 'oauth') await guardUrl(deps, 'credentials.token_url', c.tokenUrl);
  if (c.kind === 'mtls') checkClientPair(c);
}

/**
 * An mTLS certificate and key that cannot serve together (not PEM, an encrypted key, a key of another certificate)
 * would fail every call to the remote at its TLS handshake, long after the add said it was done: refused now, naming
 * the one at fault and never quoting it.
 */
function checkClientPair(c: { cert: string; key: string }): void {
  const bad = pemPairProblem(c);
  if (bad) throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `credentials.${bad.which}: ${bad.problem}`, `credentials.${bad.which}`);
}

const notFound = (r: { workspace: string; name: string }) =>
  new ConnectionAdminError('ERR_CONNECTION_NOT_FOUND', `no connection named ${r.name} in workspace ${r.workspace}`, 'name');

async function load(deps: ConnectionAdminDeps, ref: ConnectionRef): Promise<ConnectionRecord> {
  const r = parsed(ConnectionRef, ref);
  const rec = await deps.connections.get(r.workspace, r.name);
  if (!rec) throw notFound(r);
  return rec;
}

/** What the URL checks need: no store, so a caller may run them before it opens one. */
type GuardDeps = Pick<ConnectionAdminDeps, 'allowlist' | 'resolve'>;

/** Every check of an add that needs no store: the input, and its URLs through the SSRF guard. */
export async function checkAddInput(deps: GuardDeps, input: unknown) {
  const parsedInput = parseAddInput(input);
  await guardUrl(deps, 'url', parsedInput.url);
  await guardOrigins(deps, parsedInput.allowedOrigins);
  await guardCredentialUrls(deps, parsedInput.credentials);
  return parsedInput;
}

/** The same for an update: the URLs it gives (credentials of the stored kind are checked once merged with the record). */
export async function checkUpdateInput(deps: GuardDeps, input: unknown) {
  const u = parseUpdateInput(input);
  if (u.settings.url !== undefined) await guardUrl(deps, 'url', u.settings.url);
  if (u.settings.allowedOrigins !== undefined) await guardOrigins(deps, u.settings.allowedOrigins);
  return u;
}

/** `input` is parsed here (it comes from a command line or an HTTP body), so it is taken as unknown. */
export async function addConnection(deps: ConnectionAdminDeps, input: unknown): Promise<ConnectionView> {
  const { credentials, ...settings } = await checkAddInput(deps, input);
  const exists = () =>
    new ConnectionAdminError(
      'ERR_CONNECTION_EXISTS',
      `name: a connection named ${settings.name} already exists in workspace ${settings.workspace} (update or remove it)`,
      'name',
    );
  if (await deps.connections.get(settings.workspace, settings.name)) throw exists();
  const now = deps.clock.now();
  const id = `conn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const rec: ConnectionRecord = {
    ...settings,
    id,
    credentialKind: credentials.kind,
    sealed: boxFor(deps.secret).seal(credentials, { context: id }),
    createdAt: now,
    updatedAt: now,
  };
  // the check above names the common case early; this one decides: of two adds at once, one stores, one is told
  if (!(await deps.connections.insert(rec))) throw exists();
  return publicConnectionView(rec);
}

export async function listConnections(deps: ConnectionAdminDeps, filter: { workspace?: string } = {}): Promise<ConnectionView[]> {
  const list = await deps.connections.list(filter.workspace === undefined ? undefined : { workspace: filter.workspace });
  return list.map(publicConnectionView);
}

export async function showConnection(deps: ConnectionAdminDeps, ref: ConnectionRef): Promise<ConnectionView> {
  return publicConnectionView(await load(deps, ref));
}

export async function connectionStatus(deps: ConnectionAdminDeps, ref: ConnectionRef): Promise<ConnectionStatusView> {
  const rec = await load(deps, ref);
  const status = await deps.connections.getStatus(rec.workspace, rec.name);
  return { ...publicConnectionView(rec), status: status ? publicStatusView(status) : null };
}

/** Changes settings and/or credentials; the id, name, workspace and createdAt stay, updatedAt moves. */
export async function updateConnection(deps: ConnectionAdminDeps, input: unknown): Promise<ConnectionView> {
  const u = parseUpdateInput(input);
  const ref = { workspace: u.workspace, name: u.name };
  await load(deps, ref);
  // version-checked (store/versioned.ts): an update landing meanwhile is kept, this one applied over it; a connection
  // removed meanwhile (or removed and added again) is not brought back
  const done = await updateVersioned<ConnectionRecord>({
    read: () => deps.connections.getVersioned(ref.workspace, ref.name),
    write: (rec, version) => deps.connections.putIfVersion(rec, version),
    change: async (rec) => {
      const { id: _id, credentialKind, sealed, createdAt: _c, updatedAt: _u, ...current } = rec;
      const settings = parsed(ConnectionSettings, { ...current, ...u.settings });
      if (u.settings.url !== undefined) await guardUrl(deps, 'url', settings.url);
      if (u.settings.allowedOrigins !== undefined) await guardOrigins(deps, settings.allowedOrigins);
      let next = { credentialKind, sealed };
      if (u.credentials !== undefined) {
        const credentials = mergeCredentials(deps, rec, u.credentials);
        await guardCredentialUrls(deps, credentials);
        next = { credentialKind: credentials.kind, sealed: boxFor(deps.secret).seal(credentials, { context: rec.id }) };
      }
      return { ...rec, ...settings, ...next, updatedAt: deps.clock.now() };
    },
    identity: (rec) => rec.id,
    record: 'connection',
    id: `${ref.workspace}/${ref.name}`,
  });
  if (done === undefined) throw notFound(ref);
  return publicConnectionView(done.rec);
}

/** The same kind: the given fields over the stored ones. Another kind: the given fields alone, which must be complete. */
function mergeCredentials(deps: ConnectionAdminDeps, rec: ConnectionRecord, given: Record<string, unknown>): Credentials {
  const kind = given.kind ?? rec.credentialKind;
  const same = kind === rec.credentialKind;
  try {
    return parsed(GivenCredentials, same ? { ...openCredentials(deps, rec), ...given } : given, ['credentials']);
  } catch (e) {
    if (!(e instanceof ConnectionAdminError) || e.code !== 'ERR_CONNECTION_INPUT') throw e;
    const why = same
      ? `the connection's auth is ${rec.credentialKind}; give the new kind to change it`
      : `changing auth from ${rec.credentialKind} to ${String(kind)} needs all of its credentials`;
    throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `${e.message} (${why})`, e.field);
  }
}

export async function removeConnection(deps: ConnectionAdminDeps, ref: ConnectionRef): Promise<ConnectionView | RemovedDamaged> {
  const r = parsed(ConnectionRef, ref);
  const rec = await readOrDamaged(() => deps.connections.get(r.workspace, r.name));
  if (rec === undefined || !(await deps.connections.delete(r.workspace, r.name))) throw notFound(r);
  return rec === 'damaged' ? { workspace: r.workspace, name: r.name, damaged: true } : publicConnectionView(rec);
}

/** The runtime's way to a connection's secrets: unsealed with the server secret, checked against the record's kind. */
export function openCredentials(deps: { secret: Buffer }, rec: ConnectionRecord): Credentials {
  const refused = (why: string) =>
    new ConnectionAdminError(
      'ERR_CONNECTION_CREDENTIALS',
      `connection ${rec.name} of workspace ${rec.workspace}: its credentials ${why}; set them again (a2a-gateway connections update)`,
      'credentials',
    );
  let value: unknown;
  try {
    value = boxFor(deps.secret).open(rec.sealed, { context: rec.id });
  } catch (e) {
    if (e instanceof SecretBoxError) throw refused(`do not open (${e.code}: was the server secret changed?)`);
    throw e;
  }
  const r = Credentials.safeParse(value);
  if (!r.success || r.data.kind !== rec.credentialKind) throw refused(`are not ${rec.credentialKind} credentials`);
  return r.data;
}
