// Client mode's parts, put together once for the server and for `a2a-gateway call`: the A2A client, the connection
// supervisor over the store, and the result keeper.
import { ConnectionSupervisor } from './actors/connection-supervisor.js';
import type { Config } from './config/schema.js';
import { createA2AClient } from './runtime/a2a-client/client.js';
import type { Clock, Timers } from './runtime/clock.js';
import { openCredentials } from './runtime/connection-admin.js';
import type { Log } from './runtime/log.js';
import { parseAllowlist, type Resolve } from './runtime/net/guard.js';
import { createResultKeeper } from './runtime/outbound-results.js';
import type { Store } from './runtime/store/types.js';

export interface Outbound {
  supervisor: ConnectionSupervisor;
  close(): Promise<void>;
}

export function createOutbound(o: {
  config: Config;
  store: Pick<Store, 'connections' | 'results'>;
  secret: Buffer;
  clock: Clock;
  timers: Timers;
  log: Log;
  resolve?: Resolve;
  /** false for a one-off process (the CLI): the server's actors own the status records */
  reportStatus?: boolean;
}): Outbound {
  const c = o.config.connections;
  const client = createA2AClient({
    clock: o.clock,
    timers: o.timers,
    allowlist: parseAllowlist(o.config.push.allowlist, 'push.allowlist'),
    ...(o.resolve && { resolve: o.resolve }),
    timeoutMs: c.callTimeoutMs,
    defaultCardTtlMs: c.cardTtlMs,
    maxCardTtlMs: c.cardMaxTtlMs,
  });
  const supervisor = new ConnectionSupervisor({
    connections: o.store.connections,
    client,
    openCredentials: (rec) => openCredentials({ secret: o.secret }, rec),
    keepResult: createResultKeeper({ results: o.store.results, clock: o.clock }),
    clock: o.clock,
    timers: o.timers,
    settings: c,
    log: o.log,
    reportStatus: o.reportStatus ?? true,
  });
  return {
    supervisor,
    async close() {
      await supervisor.stop();
      await client.close();
    },
  };
}
