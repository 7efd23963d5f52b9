// The dashboard's admin API as the config sets it up (none when dashboard.enabled is false): its budgets, sessions and
// bounds read from the config, its parts (store, supervisor, relays...) handed over by the composition root.
import type { Config } from './config/schema.js';
import { createAdmin } from './gateway/admin/admin.js';
import type { AdminDeps } from './gateway/admin/types.js';
import type { AdminApi } from './gateway/api.js';
import { parseAllowlist, type Resolve } from './runtime/net/guard.js';

/** What the composition root hands over: the running parts, and the card it serves. */
export type AdminParts = Pick<
  AdminDeps,
  | 'store'
  | 'secret'
  | 'hasher'
  | 'clock'
  | 'timers'
  | 'agents'
  | 'supervisor'
  | 'bus'
  | 'push'
  | 'deliveries'
  | 'usage'
  | 'keyWatch'
  | 'connections'
  | 'relays'
  | 'card'
  | 'limiter'
  | 'log'
>;

export function configuredAdmin(o: { config: Config; parts: AdminParts; lookup: Resolve | undefined }): AdminApi | undefined {
  const { config, parts } = o;
  return config.dashboard.enabled
    ? createAdmin({
        ...parts,
        allowlist: parseAllowlist(config.push.allowlist, 'push.allowlist'),
        ...(o.lookup && { resolve: o.lookup }),
        ...(config.publicUrl && { publicUrl: config.publicUrl }),
        sessionTtlMs: config.dashboard.sessionTtlMs,
        sessionCheckMs: config.streaming.keyCheckMs,
        limits: config.dashboard.limits,
        authFailures: config.dashboard.authFailures,
        maxStreamsPerKey: config.dashboard.maxStreamsPerKey,
        maxBodyBytes: Math.min(config.maxBodyBytes, 256 * 1024),
      })
    : undefined;
}
