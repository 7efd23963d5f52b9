// Presence of instances sharing Redis (none on LMDB, where one server owns the data dir): this instance's beats, the
// sweep for instances gone silent, and what each failure tells the operator.
import type { Config } from './config/schema.js';
import type { Clock, Timers } from './runtime/clock.js';
import { errorText, type Log } from './runtime/log.js';
import { Presence } from './runtime/presence.js';
import type { Store } from './runtime/store/types.js';

export function instancePresence(o: { config: Config; store: Store; clock: Clock; timers: Timers; instanceId: string; log: Log }): Presence | undefined {
  const { config, instanceId, log } = o;
  // instances share work only on Redis: there each beats, and fails what a dead one left running
  return config.store === 'redis'
    ? new Presence({
        meta: o.store.meta,
        clock: o.clock,
        timers: o.timers,
        instanceId,
        beatMs: config.instances.heartbeatMs,
        deadAfterMs: config.instances.deadAfterMs,
        onError: (e) => log('instance heartbeat failed', { error: e instanceof Error ? e.message : String(e) }),
        // the scan that fails dead instances' tasks: its own line, so an operator can tell which of the two failed
        onSweepError: (e) => log('instance sweep failed', { error: errorText(e) }),
        onTwin: () =>
          log('another running gateway process uses this instance id', {
            instance: instanceId,
            effect:
              "each one's start fails the tasks the other runs (reason gateway_restart) and frees the webhook deliveries it claimed (sent twice); neither is ever judged dead",
            fix: 'give every instance its own A2A_INSTANCE_ID (config instanceId)',
          }),
      })
    : undefined;
}
