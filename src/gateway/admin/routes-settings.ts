// Admin routes of Settings: API keys, outbound connections, relay connections and webhooks. Every operation is the same
// module the CLI calls (key-admin, connection-admin, relay-admin, the webhook secrets); here only the workspace is fixed
// to the caller's and the HTTP shapes are read.
import { z } from 'zod';
import { addConnection, connectionStatus, listConnections, publicStatusView, removeConnection, updateConnection } from '../../runtime/connection-admin.js';
import { KeyName, RateLimits } from '../../protocol/records.js';
import { createKey, listKeys, revokeKey, rotateKey } from '../../runtime/key-admin.js';
import { addRelay, listRelays, removeRelay, setRelayAgent } from '../../runtime/relay-admin.js';
import { badInput, notFound } from './http.js';
import type { AdminCall, AdminDeps, AdminRoute } from './types.js';
import { firstIssue } from '../../protocol/input-issue.js';

/** How many waiting webhook deliveries the webhooks page shows (the soonest due), with the count of all. */
export const WAITING_SHOWN = 100;

/** The dashboard's "create key" form: expiry as an ISO date (or none), limits as two numbers. */
const NewKey = z
  .object({
    name: KeyName.optional(),
    trust: z.string(),
    scopes: z.array(z.string()).optional(),
    agents: z.array(z.string()).optional(),
    expires_at: z.iso.datetime().nullable().optional(),
    // strict here (the stored record's schema is not): a misspelt window is refused, not silently dropped
    limits: RateLimits.strict().optional(),
  })
  .strict();

function read<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const i = firstIssue(r.error);
  const field = i.path.map(String).join('.') || 'input';
  throw badInput(`${field}: ${i.message}`, field);
}

export function settingsRoutes(d: AdminDeps): AdminRoute[] {
  const keyDeps = { keys: d.store.keys, relays: d.store.relays, secret: d.secret, clock: d.clock };
  const connDeps = { connections: d.store.connections, secret: d.secret, clock: d.clock, allowlist: d.allowlist, ...(d.resolve && { resolve: d.resolve }) };
  const relayDeps = { relays: d.store.relays, keys: d.store.keys, clock: d.clock };
  /** `result`, once every instance has been told the relay records changed */
  const told = <T>(result: T): T => {
    d.relays.recordsChanged();
    return result;
  };

  /** A key of this workspace, else "not found" (another workspace's key is not this dashboard's business). */
  const ownKey = async (c: AdminCall) => {
    const rec = await d.store.keys.get(c.params[0]!);
    if (!rec || rec.workspaceId !== c.workspace) throw notFound(`No key ${c.params[0]} in workspace ${c.workspace}`);
    return rec;
  };

  /** A connection's view with its actor's live state (the stored status when no actor runs here). */
  const withState = async (workspace: string, name: string) => {
    const view = await connectionStatus(connDeps, { workspace, name });
    const live = d.connections.status(workspace, name);
    return { ...view, status: live ? publicStatusView(live) : view.status };
  };

  const relayState = (workspace: string) => async () =>
    (await listRelays(relayDeps, { workspace })).map((r) => ({
      ...r,
      tunnel: d.relays.online(workspace, r.name) ? 'connected' : 'disconnected',
      agents: r.agents.map((a) => ({ ...a, online: d.agents.online(workspace, a.name), health: d.agents.health(workspace, a.name) ?? null })),
    }));

  return [
    // API keys
    {
      method: 'GET',
      path: /^\/keys$/,
      handler: async (c) => {
        const keys = await listKeys(keyDeps, c.workspace);
        const used = await d.usage.lastUsed(keys.map((k) => k.id));
        return {
          keys: keys.map((k) => {
            const at = used.get(k.id);
            return { ...k, last_used_at: at === undefined ? null : new Date(at).toISOString() };
          }),
        };
      },
    },
    {
      method: 'POST',
      path: /^\/keys$/,
      handler: async (c) => {
        const k = read(NewKey, c.body);
        const made = await createKey(keyDeps, {
          workspace: c.workspace,
          trust: k.trust,
          scopes: k.scopes ?? [],
          agents: k.agents ?? [],
          ...(k.name !== undefined && { name: k.name }),
          expiresAt: k.expires_at ? Date.parse(k.expires_at) : null,
          ...(k.limits && { limits: k.limits }),
        });
        d.log('key created from the dashboard', { workspace: c.workspace, key: made.record.id });
        return made.view;
      },
    },
    {
      method: 'POST',
      path: /^\/keys\/([^/]+)\/revoke$/,
      handler: async (c) => {
        const v = await revokeKey(keyDeps, (await ownKey(c)).id);
        // what the key holds open closes now, on every instance (a relay's tunnel, streams), not at the next check
        d.relays.keyRevoked(v.id);
        return v;
      },
    },
    { method: 'POST', path: /^\/keys\/([^/]+)\/rotate$/, handler: async (c) => (await rotateKey(keyDeps, (await ownKey(c)).id)).view },

    // outbound connections
    {
      method: 'GET',
      path: /^\/connections$/,
      handler: async (c) => ({
        connections: await Promise.all((await listConnections(connDeps, { workspace: c.workspace })).map((v) => withState(c.workspace, v.name))),
      }),
    },
    {
      method: 'POST',
      path: /^\/connections$/,
      handler: async (c) => {
        const view = await addConnection(connDeps, { ...(c.body as object), workspace: c.workspace });
        await d.connections.rescan();
        return view;
      },
    },
    {
      method: 'PATCH',
      path: /^\/connections\/([^/]+)$/,
      handler: async (c) => {
        const view = await updateConnection(connDeps, { ...(c.body as object), workspace: c.workspace, name: c.params[0] });
        await d.connections.rescan();
        return view;
      },
    },
    {
      method: 'DELETE',
      path: /^\/connections\/([^/]+)$/,
      handler: async (c) => {
        const view = await removeConnection(connDeps, { workspace: c.workspace, name: c.params[0]! });
        await d.connections.rescan();
        return view;
      },
    },
    { method: 'GET', path: /^\/connections\/([^/]+)$/, handler: async (c) => withState(c.workspace, c.params[0]!) },
    {
      method: 'POST',
      path: /^\/connections\/([^/]+)\/test$/,
      handler: async (c) => {
        await connectionStatus(connDeps, { workspace: c.workspace, name: c.params[0]! });
        try {
          return { ok: true, ...(await d.connections.testCard(c.workspace, c.params[0]!)) };
        } catch (e) {
          return { ok: false, error: e instanceof Error ? e.message : String(e) };
        }
      },
    },

    // relay connections and their agents
    { method: 'GET', path: /^\/relays$/, handler: async (c) => ({ relays: await relayState(c.workspace)() }) },
    // each change is told to every instance at once (a removed relay's tunnel closes, a new setting applies), not at
    // their next record sync
    { method: 'POST', path: /^\/relays$/, handler: async (c) => told(await addRelay(relayDeps, { ...(c.body as object), workspace: c.workspace })) },
    { method: 'DELETE', path: /^\/relays\/([^/]+)$/, handler: async (c) => told(await removeRelay(relayDeps, { workspace: c.workspace, name: c.params[0] })) },
    {
      method: 'PATCH',
      path: /^\/relays\/([^/]+)\/agents\/([^/]+)$/,
      handler: async (c) => told(await setRelayAgent(relayDeps, { ...(c.body as object), workspace: c.workspace, name: c.params[0], agent: c.params[1] })),
    },

    // webhooks
    {
      method: 'GET',
      path: /^\/webhooks$/,
      handler: async (c) => {
        // only this workspace's jobs, and only the soonest few: with receivers down thousands may wait
        const waiting = await d.store.pushJobs.listWorkspace({ workspaceId: c.workspace, limit: WAITING_SHOWN });
        return {
          has_secret: (await d.push.secrets.current(c.workspace)) !== undefined,
          deliveries: await d.deliveries.list(c.workspace),
          waiting_total: waiting.total,
          waiting: waiting.jobs.map((j) => ({
            id: j.id,
            task_id: j.taskKey.slice(c.workspace.length + 1),
            attempts: j.attempts,
            due_at: new Date(j.dueAt).toISOString(),
            last_error: j.lastError ?? null,
          })),
        };
      },
    },
    {
      method: 'POST',
      path: /^\/webhooks\/secret\/rotate$/,
      handler: async (c) => {
        const secret = await d.push.secrets.rotate(c.workspace);
        d.log('webhook secret rotated from the dashboard', { workspace: c.workspace });
        return { secret };
      },
    },
  ];
}
