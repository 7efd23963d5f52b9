// Relay connection administration, the one module the CLI (and later the dashboard) calls: add, list, show, remove;
// each announced agent's trust and permissions; and what the tunnel endpoint needs (the relay a key opens, recording
// an announcement). Keys never appear: a relay record names its key by id only.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentId } from '../protocol/agent-events.js';
import { ConnectionName } from '../protocol/connections.js';
import { WorkspaceId } from '../protocol/records.js';
import { DEFAULT_RELAY_AGENT_TRUST, type RelayAgentRecord, type RelayRecord } from '../protocol/relays.js';
import { TrustLevel } from '../protocol/scopes.js';
import type { RelayAgentCard } from '../protocol/tunnel.js';
import type { Clock } from './clock.js';
import { keyLapsed } from './keys.js';
import { readOrDamaged, type RemovedDamaged } from './store/errors.js';
import type { KeyStore, RelayStore } from './store/types.js';
import { updateVersioned } from './store/versioned.js';
import { firstIssue } from '../protocol/input-issue.js';

export type RelayAdminErrorCode =
  /** an argument is missing or invalid (`field` names it) */
  | 'ERR_RELAY_INPUT'
  | 'ERR_RELAY_EXISTS'
  | 'ERR_RELAY_NOT_FOUND'
  /** the key named is unknown, of another workspace, revoked, or already opens another relay */
  | 'ERR_RELAY_KEY';

export class RelayAdminError extends Error {
  constructor(
    readonly code: RelayAdminErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'RelayAdminError';
  }
}

export interface RelayAdminDeps {
  relays: RelayStore;
  keys: KeyStore;
  clock: Clock;
}

// a relay's workspace and agents follow the rules every workspace id and agent id follows (no control or bidi
// characters, no '/', at most 128 characters; an agent id as its URL names it)
const AddRelayInput = z.object({ workspace: WorkspaceId, name: ConnectionName, key: z.string().min(1) }).strict();
const RelayRef = z.object({ workspace: WorkspaceId, name: ConnectionName }).strict();
export type RelayRef = z.input<typeof RelayRef>;
const AgentSettingInput = RelayRef.extend({
  agent: AgentId,
  trust: TrustLevel.optional(),
  /** key ids that may reach the agent; empty: every key of the workspace */
  keys: z.array(z.string().min(1)).optional(),
}).strict();

function parsed<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = firstIssue(r.error);
  const field = issue.path.map(String).join('.') || 'input';
  throw new RelayAdminError('ERR_RELAY_INPUT', `${field}: ${issue.message}`, field);
}

export const parseAddRelayInput = (input: unknown) => parsed(AddRelayInput, input);
export const parseRelayRef = (input: unknown) => parsed(RelayRef, input);
export const parseAgentSetting = (input: unknown) => parsed(AgentSettingInput, input);

export interface RelayAgentView {
  name: string;
  trust: string;
  /** key ids; empty: every key of the workspace */
  keys: string[];
  description: string | null;
  skills: string[];
  /** whether the relay announced it (it may be set before its first announcement) */
  announced: boolean;
}

export interface RelayView {
  id: string;
  workspace: string;
  name: string;
  key_id: string;
  agents: RelayAgentView[];
  created_at: string;
  updated_at: string;
}

const agentView = (name: string, a: RelayAgentRecord): RelayAgentView => ({
  name,
  trust: a.trust,
  keys: a.keys,
  description: a.card?.description ?? null,
  skills: a.card?.skills.map((s) => s.id) ?? [],
  announced: a.card !== undefined,
});

export const relayView = (r: RelayRecord): RelayView => ({
  id: r.id,
  workspace: r.workspace,
  name: r.name,
  key_id: r.keyId,
  agents: Object.entries(r.agents)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([n, a]) => agentView(n, a)),
  created_at: new Date(r.createdAt).toISOString(),
  updated_at: new Date(r.updatedAt).toISOString(),
});

const notFound = (r: { workspace: string; name: string }) =>
  new RelayAdminError('ERR_RELAY_NOT_FOUND', `no relay named ${r.name} in workspace ${r.workspace}`, 'name');

async function load(deps: RelayAdminDeps, ref: unknown): Promise<RelayRecord> {
  const r = parseRelayRef(ref);
  const rec = await deps.relays.get(r.workspace, r.name);
  if (!rec) throw notFound(r);
  return rec;
}

/** Registers a relay: the key must be a live key of the same workspace that opens no other relay. */
export async function addRelay(deps: RelayAdminDeps, input: unknown): Promise<RelayView> {
  const a = parseAddRelayInput(input);
  const key = await deps.keys.get(a.key);
  if (!key) throw new RelayAdminError('ERR_RELAY_KEY', `key: no key ${a.key}`, 'key');
  if (key.workspaceId !== a.workspace)
    throw new RelayAdminError('ERR_RELAY_KEY', `key: ${a.key} is a key of another workspace (a relay's key must be of ${a.workspace})`, 'key');
  const lapsed = keyLapsed(key, deps.clock.now());
  if (lapsed) throw new RelayAdminError('ERR_RELAY_KEY', `key: ${a.key} is ${lapsed}`, 'key');
  const exists = () =>
    new RelayAdminError('ERR_RELAY_EXISTS', `name: a relay named ${a.name} already exists in workspace ${a.workspace} (remove it first)`, 'name');
  if (await deps.relays.get(a.workspace, a.name)) throw exists();
  // through the store's key index: no pass over every relay of every workspace
  const opening = () => deps.relays.byKey(a.key);
  const keyTaken = (relay: RelayRecord | undefined) =>
    new RelayAdminError('ERR_RELAY_KEY', `key: ${a.key} already opens relay ${relay?.name ?? '(another)'}; give each relay its own key`, 'key');
  const taken = await opening();
  if (taken) throw keyTaken(taken);
  const now = deps.clock.now();
  const rec: RelayRecord = {
    id: `relay_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    workspace: a.workspace,
    name: a.name,
    keyId: a.key,
    agents: {},
    createdAt: now,
    updatedAt: now,
  };
  // the checks above name the common case early; the insert decides, both checks inside its write: of two adds at
  // once (of one name, or of one key), one stores, the other is told
  const stored = await deps.relays.insert(rec);
  if (stored === 'name-taken') throw exists();
  if (stored === 'key-taken') throw keyTaken(await opening());
  return relayView(rec);
}

/**
 * A version-checked read-modify-write of one relay (store/versioned.ts): `change` is applied to the record as stored at
 * the write, again after a conflict, so no other writer's change (an announcement, an operator's setting, a key's
 * rotation) is lost. Only the relay first read is changed: one removed meanwhile, or removed and added again, is not.
 */
function updateRelay(
  relays: RelayStore,
  ref: { workspace: string; name: string },
  change: (rec: RelayRecord) => RelayRecord | undefined,
): Promise<{ rec: RelayRecord; written: boolean } | undefined> {
  return updateVersioned<RelayRecord>({
    read: () => relays.getVersioned(ref.workspace, ref.name),
    write: (rec, version) => relays.putIfVersion(rec, version),
    change,
    identity: (rec) => rec.id,
    record: 'relay',
    id: `${ref.workspace}/${ref.name}`,
  });
}

export async function listRelays(deps: Pick<RelayAdminDeps, 'relays'>, filter: { workspace?: string } = {}): Promise<RelayView[]> {
  return (await deps.relays.list(filter.workspace === undefined ? undefined : { workspace: filter.workspace })).map(relayView);
}

export async function showRelay(deps: RelayAdminDeps, ref: unknown): Promise<RelayView> {
  return relayView(await load(deps, ref));
}

export async function removeRelay(deps: RelayAdminDeps, ref: unknown): Promise<RelayView | RemovedDamaged> {
  const r = parseRelayRef(ref);
  const rec = await readOrDamaged(() => deps.relays.get(r.workspace, r.name));
  if (rec === undefined || !(await deps.relays.delete(r.workspace, r.name))) throw notFound(r);
  return rec === 'damaged' ? { workspace: r.workspace, name: r.name, damaged: true } : relayView(rec);
}

/**
 * A key an agent's list names must be a live key of the relay's workspace: a mistyped id, or one of another workspace
 * (whose callers never reach this relay), would leave a list that lets no intended caller in, and say nothing.
 */
async function checkPermittedKey(deps: RelayAdminDeps, id: string, workspace: string): Promise<void> {
  const key = await deps.keys.get(id);
  if (!key) throw new RelayAdminError('ERR_RELAY_KEY', `keys: no key ${id}`, 'keys');
  if (key.workspaceId !== workspace)
    throw new RelayAdminError('ERR_RELAY_KEY', `keys: ${id} is a key of another workspace (the relay's agents serve ${workspace})`, 'keys');
  const lapsed = keyLapsed(key, deps.clock.now());
  if (lapsed) throw new RelayAdminError('ERR_RELAY_KEY', `keys: ${id} is ${lapsed}`, 'keys');
}

/** Sets one agent's trust and/or the keys that may reach it; the agent may be set before the relay announces it. */
export async function setRelayAgent(deps: RelayAdminDeps, input: unknown): Promise<RelayAgentView> {
  const s = parseAgentSetting(input);
  if (s.trust === undefined && s.keys === undefined) throw new RelayAdminError('ERR_RELAY_INPUT', 'agent: nothing to change (give a trust level or keys)');
  const ref = { workspace: s.workspace, name: s.name };
  await load(deps, ref);
  for (const id of s.keys ?? []) await checkPermittedKey(deps, id, s.workspace);
  let next: RelayAgentRecord | undefined;
  const done = await updateRelay(deps.relays, ref, (rec) => {
    const current = rec.agents[s.agent] ?? { trust: DEFAULT_RELAY_AGENT_TRUST, keys: [] };
    next = { ...current, ...(s.trust === undefined ? {} : { trust: s.trust }), ...(s.keys === undefined ? {} : { keys: s.keys }) };
    return { ...rec, agents: { ...rec.agents, [s.agent]: next }, updatedAt: deps.clock.now() };
  });
  // a relay removed meanwhile (or removed and added again) is not brought back, nor given the setting
  if (done === undefined || next === undefined) throw notFound(ref);
  return agentView(s.agent, next);
}

/** The relay a key opens, if any (the tunnel endpoint chooses the record by the key). */
export async function relayOfKey(relays: RelayStore, keyId: string, workspace: string): Promise<RelayRecord | undefined> {
  const rec = await relays.byKey(keyId);
  return rec?.workspace === workspace ? rec : undefined;
}

/**
 * Keeps the announced agents' cards; an agent new to the record gets the default trust. Trust and keys already set
 * stay (they are kept across reconnects). An agent no longer announced loses its card (it is not listed, even after a
 * restart), and goes altogether when nothing but the defaults was set for it: a relay that renames its agents at each
 * connection must not grow its record without bound. Returns the record as written, or undefined when the relay is no
 * longer the one the tunnel was opened for (removed, or added again under another key, since): nothing is written
 * back then.
 */
export async function recordAnnouncement(
  deps: { relays: RelayStore; clock: Clock },
  rec: RelayRecord,
  cards: readonly RelayAgentCard[],
): Promise<RelayRecord | undefined> {
  const done = await updateRelay(deps.relays, rec, (fresh) => {
    // a relay added again under another key since the tunnel opened is not this tunnel's
    if (fresh.keyId !== rec.keyId) return undefined;
    const agents: Record<string, RelayAgentRecord> = {};
    const announced = new Set(cards.map((c) => c.name));
    for (const [name, { card, ...settings }] of Object.entries(fresh.agents)) {
      if (announced.has(name)) continue;
      // an agent only announced before (no settings of its own) goes; one with settings keeps them, without its card
      const defaults = settings.trust === DEFAULT_RELAY_AGENT_TRUST && settings.keys.length === 0;
      if (!(card !== undefined && defaults)) agents[name] = settings;
    }
    // the operator's trust and keys as stored at the write (version-checked): an edit landing meanwhile is kept
    for (const card of cards) agents[card.name] = { trust: DEFAULT_RELAY_AGENT_TRUST, keys: [], ...fresh.agents[card.name], card };
    return { ...fresh, agents, updatedAt: deps.clock.now() };
  });
  // a relay removed since it was read is not brought back by its own tunnel's announcement
  return done?.written ? done.rec : undefined;
}

/**
 * Rewrites the permitted-key lists of every relay agent of `workspace` with `edit` (a list it returns unchanged is
 * not written). A key's rotation and revocation keep the lists in step with the key's life (docs/decisions.md).
 */
async function editAgentKeys(deps: { relays: RelayStore; clock: Clock }, workspace: string, edit: (keys: readonly string[]) => string[]): Promise<void> {
  for (const listed of await deps.relays.list({ workspace })) {
    // each relay version-checked: an operator's setting or an announcement landing meanwhile is kept, and this edit too
    await updateRelay(deps.relays, listed, (rec) => {
      let changed = false;
      const agents: Record<string, RelayAgentRecord> = {};
      for (const [name, a] of Object.entries(rec.agents)) {
        const keys = edit(a.keys);
        changed ||= keys.length !== a.keys.length || keys.some((k, i) => k !== a.keys[i]);
        agents[name] = { ...a, keys };
      }
      return changed ? { ...rec, agents, updatedAt: deps.clock.now() } : undefined;
    });
  }
}

/** A rotated key keeps its predecessor's place: `to` joins every relay agent's list that names `from`. */
export function carryRotatedKey(deps: { relays: RelayStore; clock: Clock }, o: { workspace: string; from: string; to: string }): Promise<void> {
  return editAgentKeys(deps, o.workspace, (keys) => (keys.includes(o.from) && !keys.includes(o.to) ? [...keys, o.to] : [...keys]));
}

/**
 * A revoked key leaves the relay agents' lists, unless it is the last id of one: an empty list means every key of
 * the workspace, so the revoked id stays there (it opens nothing) and the agent stays closed to the other keys.
 */
export function dropRevokedKey(deps: { relays: RelayStore; clock: Clock }, o: { workspace: string; keyId: string }): Promise<void> {
  return editAgentKeys(deps, o.workspace, (keys) => (keys.includes(o.keyId) && keys.length > 1 ? keys.filter((k) => k !== o.keyId) : [...keys]));
}
