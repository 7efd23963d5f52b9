// What a CLI change tells the running gateways at once (Redis store): a revoked key (each instance re-reads it and ends
// what it holds open: a relay's tunnel, streams) or changed relay records (each re-reads them), as the admin API does.
// Without it they find out at their periodic checks (streaming.keyCheckMs, the relay record sync), which stay the
// bound on LMDB, where the gateway is a process of its own on the same files and there is no channel to it.
import { Packr } from 'msgpackr';
import type { Config } from '../config/schema.js';
import type { MeshMessage } from '../protocol/relay-mesh.js';
import { tellInstancesOnce } from '../runtime/events/bus.js';
import { errorText } from '../runtime/log.js';

const packr = new Packr({ useRecords: false });

type Told = { t: 'lapsed'; keyId: string } | { t: 'relays' };

export async function tellInstances(config: Config, m: Told): Promise<void> {
  if (config.store !== 'redis') return;
  const msg: MeshMessage = { ...m, from: 'cli' };
  try {
    await tellInstancesOnce({ url: config.redisUrl, prefix: config.redisPrefix }, packr.pack(msg));
  } catch (e) {
    // the change is stored: running gateways still see it at their next check
    process.stderr.write(`a2a-gateway: warning: running gateways were not told at once (${errorText(e)}); they see the change within seconds\n`);
  }
}
