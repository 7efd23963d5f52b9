// What /readyz reports: whether the store and the event bus answer now, and in words which one does not.
import type { EventBus } from './events/bus.js';
import { errorText } from './log.js';
import type { Store } from './store/types.js';

export async function readiness(o: { store: Pick<Store, 'ping' | 'kind'>; bus: Pick<EventBus, 'ping'> }): Promise<{ ok: boolean; detail?: string }> {
  const [store, bus] = await Promise.allSettled([o.store.ping(), o.bus.ping()]);
  const down: string[] = [];
  if (store.status === 'rejected') down.push(`store (${o.store.kind}) unavailable: ${errorText(store.reason)}`);
  if (bus.status === 'rejected') down.push(`event bus unavailable: ${errorText(bus.reason)}`);
  return down.length === 0 ? { ok: true } : { ok: false, detail: down.join('; ') };
}
