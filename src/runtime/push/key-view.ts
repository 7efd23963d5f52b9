// Whose eyes a webhook sees through: the key that registered its config, as it stands now.
import { effectiveScopes } from '../../protocol/scopes.js';
import { keyLapsed } from '../keys.js';
import type { KeyStore } from '../store/types.js';
import type { PushView } from './jobs.js';

/**
 * The view a delivery to a config registered by `keyId` may carry, or undefined when that key may no longer act
 * (revoked, expired, deleted): its webhooks stop. A config stored before configs named their key sees all.
 */
export async function pushViewOf(o: { keys: KeyStore; keyId: string | undefined; now: number }): Promise<PushView | undefined> {
  if (o.keyId === undefined) return { results: true, files: true };
  const key = await o.keys.get(o.keyId);
  if (!key || keyLapsed(key, o.now)) return undefined;
  const scopes = effectiveScopes(key.trust, key.scopes);
  return { results: scopes.includes('results.read'), files: scopes.includes('results.files') };
}
