// The name this instance gives itself in task ownership, push leases and presence: stable across restarts so a
// restarted instance recovers its own tasks; and the operator's warning when it cannot be (Redis, port 0, no name).
import { hostname } from 'node:os';
import type { Config } from './config/schema.js';
import type { Log } from './runtime/log.js';

/** config.instanceId, else `embedded` on LMDB (one server per data dir), else host:port; port 0 has no stable name. */
export function instanceIdOf(config: Config): string {
  return config.instanceId ?? (config.store === 'lmdb' ? 'embedded' : `${hostname()}:${config.port === 0 ? `pid${process.pid}` : config.port}`);
}

/** Warns when instances share Redis and this one's name is not kept across its restarts. */
export function warnUnstableInstanceId(o: { config: Config; instanceId: string; log: Log }): void {
  const { config, instanceId, log } = o;
  if (config.store === 'redis' && config.instanceId === undefined && config.port === 0) {
    // its next start cannot know its old tasks for its own: they wait for the presence sweep instead (and a cancel of
    // one waits for a dead instance meanwhile), and each start leaves one more beat key in Redis until it expires
    log('this instance has no stable name (port 0 and no A2A_INSTANCE_ID)', {
      instance: instanceId,
      effect: `tasks it leaves running are failed only once instances.deadAfterMs has passed after its restart (reason instance_lost), not at its next start`,
      fix: 'set A2A_INSTANCE_ID (config instanceId) to a name unique to this instance and kept across its restarts',
    });
  }
}
