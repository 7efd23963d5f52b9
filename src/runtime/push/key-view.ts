// Whose eyes a webhook sees through: the key that registered its config, as it stands now.
import type { KeyRecord } from '../../protocol/records.js';
import { effectiveScopes } from '../../protocol/scopes.js';
import { keyLapsed } from '../keys.js';
import type { KeyStore } from '../store/types.js';
import type { PushView } from './jobs.js';

/** Whether the agent's own permissions (a relay agent's permitted keys) let the key at its tasks (AgentRegistry.permits). */
export type AgentPermits = (key: KeyRecord, agentId: string) => boolean;

/**
 * The view a delivery to a config registered by `keyId` may carry, or undefined when that key may no longer act
 * (revoked, expired, deleted) or no longer reach the task's agent (taken off a relay agent's list): its webhooks
 * stop. A config stored before configs named their key sees all; a job queued before jobs named their agent is not
 * checked against it.
 */
export async function pushViewOf(o: {
  keys: KeyStore;
  keyId: string | undefined;
  now: number;
  agentId?: string | undefined;
  permits?: AgentPermits | undefined;
}): Promise<PushView | undefined> {
  if (o.keyId === undefined) return { results: true, files: true };
  const key = await o.keys.get(o.keyId);
  if (!key || keyLapsed(key, o.now)) return undefined;
  if (o.agentId !== undefined && o.permits && !o.permits(key, o.agentId)) return undefined;
  const scopes = effectiveScopes(key.trust, key.scopes);
  return { results: scopes.includes('results.read'), files: scopes.includes('results.files') };
}
