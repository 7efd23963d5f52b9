// Key administration shared by the CLI and tests: create (shown once), list, revoke, rotate.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentId } from '../protocol/agent-events.js';
import { KeyName, KeyRecord, RateLimits, WorkspaceId, publicKeyView } from '../protocol/records.js';
import { listedOnce } from '../protocol/listed-once.js';
import { Scope, TrustLevel, scopesBeyondTrust } from '../protocol/scopes.js';
import type { Clock } from './clock.js';
import { hashKey, keyLapsed, mintKey } from './keys.js';
import { carryRotatedKey, dropRevokedKey } from './relay-admin.js';
import type { KeyStore, RelayStore } from './store/types.js';
import { updateVersioned } from './store/versioned.js';
import { firstIssue } from '../protocol/input-issue.js';

/** A key naming more agents than this should be a workspace of its own (a long list is read on every call). */
export const MAX_KEY_AGENTS = 256;

export const CreateKeyInput = z.object({
  workspace: WorkspaceId,
  trust: TrustLevel,
  // a repeat is most likely a slip (one name typed where another was meant): refused, as for a connection's lists
  scopes: listedOnce(z.array(Scope)).default([]),
  /** empty: every agent of the workspace */
  agents: listedOnce(z.array(AgentId).max(MAX_KEY_AGENTS, `at most ${MAX_KEY_AGENTS} agents`)).default([]),
  name: KeyName.optional(),
  expiresAt: z.number().int().nullable().default(null),
  limits: RateLimits.optional(),
});
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

export class KeyAdminError extends Error {
  /** bad input (the admin API's `invalid_input`, as before this code; the CLI's --json the same); a subclass names its own */
  readonly code: string = 'ERR_INVALID_INPUT';
  constructor(
    message: string,
    /** the input at fault, as the views name it (`expires_at`, `scopes`, `limits.perMinute`): the admin API returns it */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'KeyAdminError';
  }
}

/**
 * A rotation that lost a race: the key was rotated, revoked (or removed) by another command between its read and its
 * write, so it made no key. A conflict, not bad input: the admin API answers 409 `key_conflict` (its code, through the
 * admin errors' mapping), the CLI exits 2 with the message, as for its other refusals.
 */
export class KeyConflictError extends KeyAdminError {
  readonly code = 'ERR_KEY_CONFLICT';
}

export interface KeyAdminDeps {
  keys: KeyStore;
  secret: Buffer;
  clock: Clock;
}

/** Revoking and rotating also keep relay agents' permitted-key lists in step with the key (relay-admin). */
export interface KeyLifeDeps extends KeyAdminDeps {
  relays: RelayStore;
}

/**
 * A key's input checked as a whole, every check that needs no store (the CLI runs it before it opens one, so a refused
 * command leaves nothing made): the schema, scopes beyond the trust level, an expiry not in the future (at `now`).
 */
export function parseCreateKeyInput(input: unknown, now: number) {
  const parsed = CreateKeyInput.safeParse(input);
  if (!parsed.success) {
    const i = firstIssue(parsed.error);
    const field =
      i.path
        .map(String)
        .join('.')
        .replace(/^expiresAt\b/, 'expires_at') || 'input';
    throw new KeyAdminError(`${field}: ${i.message}`, field);
  }
  const p = parsed.data;
  checkNewKey(p.trust, p.scopes, p.expiresAt, now);
  return p;
}

/** `input` is parsed here (it comes from a command line or a test), so it is taken as unknown. */
export async function createKey(deps: KeyAdminDeps, input: unknown, rotatedFrom?: string) {
  const p = parseCreateKeyInput(input, deps.clock.now());
  return storeNewKey(deps, {
    workspaceId: p.workspace,
    trust: p.trust,
    scopes: p.scopes,
    agents: p.agents,
    name: p.name,
    expiresAt: p.expiresAt,
    limits: p.limits,
    rotatedFrom,
  });
}

/** The checks every new key passes (a created or a rotated one) that the schema cannot make. */
function checkNewKey(trust: KeyRecord['trust'], scopes: KeyRecord['scopes'], expiresAt: number | null, now: number): void {
  const beyond = scopesBeyondTrust(trust, scopes);
  if (beyond.length > 0)
    throw new KeyAdminError(`scopes: ${beyond.join(', ')} not in trust level ${trust} (scopes may narrow a level, never widen it)`, 'scopes');
  if (expiresAt !== null && expiresAt <= now) throw new KeyAdminError('expires_at: must be in the future', 'expires_at');
}

/** What a new key is given; the id, hash and times are its own. */
type NewKeyFields = Pick<KeyRecord, 'workspaceId' | 'trust' | 'scopes' | 'agents' | 'name' | 'expiresAt' | 'limits' | 'rotatedFrom'>;

/** Mints a key (not stored yet): the checks every new key passes (a created or a rotated one) are made here. */
function mintNewKey(deps: KeyAdminDeps, f: NewKeyFields) {
  const now = deps.clock.now();
  checkNewKey(f.trust, f.scopes, f.expiresAt, now);
  const key = mintKey();
  const rec: KeyRecord = KeyRecord.parse({
    id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    hash: hashKey(deps.secret, key),
    name: f.name,
    workspaceId: f.workspaceId,
    trust: f.trust,
    scopes: f.scopes,
    agents: f.agents,
    limits: f.limits,
    createdAt: now,
    expiresAt: f.expiresAt,
    revokedAt: null,
    rotatedFrom: f.rotatedFrom,
  });
  return { key, record: rec, view: { ...publicKeyView(rec), key } };
}

/** Mints and stores a key. */
async function storeNewKey(deps: KeyAdminDeps, f: NewKeyFields) {
  const made = mintNewKey(deps, f);
  await deps.keys.put(made.record);
  return made;
}

export async function listKeys(deps: KeyAdminDeps, workspace?: string) {
  const all = await deps.keys.list(workspace ? { workspaceId: workspace } : undefined);
  return all.sort((a, b) => a.createdAt - b.createdAt).map(publicKeyView);
}

/** Key `id` with its version; when the caller names a workspace, a key of another one is refused rather than changed. */
async function loadKey(deps: KeyLifeDeps, id: string, workspace: string | undefined) {
  const got = await deps.keys.getVersioned(id);
  if (!got) throw new KeyAdminError(`no key with id ${id}`);
  checkWorkspace(got.rec, workspace);
  return got;
}

function checkWorkspace(rec: KeyRecord, workspace: string | undefined): void {
  if (workspace !== undefined && rec.workspaceId !== workspace)
    throw new KeyAdminError(`workspace: key ${rec.id} belongs to workspace ${rec.workspaceId}, not ${workspace}; nothing changed`, 'workspace');
}

/**
 * Revokes a key and takes its id off relay agents' permitted-key lists. The key is revoked first (it opens nothing
 * from then on); a second revoke tidies the lists again, should the first have stopped between the two writes. The
 * revoke is version-checked: a rotation landing meanwhile is kept (and the key revoked over it).
 */
export async function revokeKey(deps: KeyLifeDeps, id: string, o: { workspace?: string } = {}) {
  const done = await updateVersioned<KeyRecord>({
    read: () => deps.keys.getVersioned(id),
    write: (rec, version) => deps.keys.putIfVersion({ rec, version }),
    change: (rec) => {
      checkWorkspace(rec, o.workspace);
      return rec.revokedAt !== null ? undefined : { ...rec, revokedAt: deps.clock.now() };
    },
    record: 'key',
    id,
  });
  if (!done) throw new KeyAdminError(`no key with id ${id}`);
  await dropRevokedKey(deps, { workspace: done.rec.workspaceId, keyId: done.rec.id });
  return publicKeyView(done.rec);
}

/**
 * A new key with the same workspace, trust, scopes, agents, limits and expiry, and the same place on relay agents'
 * permitted-key lists; the old one stays valid until revoked. A revoked or expired key is not rotated (its copy would be
 * refused or already expired): make a new one. The new key is stored first: a stop between the writes
 * leaves it with less access, never more.
 * The values are copied as stored, even where an earlier version took what `createKey` refuses today (limits past
 * 10^9, more than 256 agents): they were the operator's choice, and rotating replaces the secret, not the settings.
 * A workspace id a key may no longer name ('/' or '*') is the exception: it is refused, saying what to do instead,
 * since those bounds keep workspaces apart and rotating would make another key for such a workspace.
 * The new key is stored in one version-checked write with the old one (marked `rotatedTo` it): of two rotations of
 * one key at once (or a rotation and a revoke), one succeeds; the other mints nothing and says why. It is not retried:
 * a retry would make the second successor the check is there to prevent.
 */
export async function rotateKey(deps: KeyLifeDeps, id: string, o: { workspace?: string } = {}) {
  const { rec, version } = await loadKey(deps, id, o.workspace);
  if (rec.revokedAt !== null) throw new KeyAdminError(`key ${id} is revoked; create a new one instead`);
  // the copied expiry is past: said as what it is, not as a bad `expires_at` the caller never sent
  if (rec.expiresAt !== null && keyLapsed(rec, deps.clock.now()) === 'expired')
    throw new KeyAdminError(`key ${id} expired at ${new Date(rec.expiresAt).toISOString()}; create a new one instead`);
  const ws = WorkspaceId.safeParse(rec.workspaceId);
  if (!ws.success) {
    throw new KeyAdminError(
      `workspace: key ${id} belongs to workspace '${rec.workspaceId}', which a key may no longer name (${ws.error.issues[0]!.message}), so it is not ` +
        `rotated. Make a key for a workspace without '/' and other than '*' (a2a-gateway keys create --workspace <id> ...), move its callers ` +
        `to it, then revoke this one (a2a-gateway keys revoke ${id})`,
      'workspace',
    );
  }
  const made = mintNewKey(deps, {
    workspaceId: rec.workspaceId,
    trust: rec.trust,
    scopes: rec.scopes,
    agents: rec.agents,
    name: rec.name,
    expiresAt: rec.expiresAt,
    limits: rec.limits,
    rotatedFrom: rec.id,
  });
  if (!(await deps.keys.putIfVersion({ rec: { ...rec, rotatedTo: made.record.id }, version, successor: made.record }))) {
    throw await rotationRefused(deps, rec);
  }
  await carryRotatedKey(deps, { workspace: rec.workspaceId, from: rec.id, to: made.record.id });
  return made;
}

/** Why a rotation's write was refused: the key changed since it was read (what changed, read again). */
async function rotationRefused(deps: KeyLifeDeps, was: KeyRecord): Promise<KeyConflictError> {
  const now = await deps.keys.get(was.id);
  const nothing = 'this rotation made no key';
  if (!now) return new KeyConflictError(`no key with id ${was.id} (it went while being rotated); ${nothing}`);
  if (now.revokedAt !== null) return new KeyConflictError(`key ${was.id} was revoked while being rotated; ${nothing}: create a new one instead`);
  if (now.rotatedTo !== was.rotatedTo)
    return new KeyConflictError(`key ${was.id} was rotated by another command at the same time (its new key is ${now.rotatedTo}); ${nothing}`);
  return new KeyConflictError(`key ${was.id} changed while being rotated; ${nothing}: try again`);
}

/** '30d', '12h', '15m', '45s' to milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(s.trim());
  if (!m) throw new KeyAdminError(`expires-in: '${s}' is not a duration like 30d, 12h, 15m or 45s`, 'expires-in');
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}
