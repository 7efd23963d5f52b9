// Health checks of the local agents: each agent's card read (past the cache) every interval; a change of any agent's
// health is reported, so the gateway shows each agent up or down. A check never throws.
import type { Clock, Timers } from '../src/runtime/clock.js';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import { errorText, type Log } from '../src/runtime/log.js';
import type { HealthEntry } from './session.js';

export interface HealthOptions {
  client: A2AClient;
  clock: Clock;
  timers: Timers;
  log: Log;
  endpoints: ReadonlyMap<string, RemoteEndpoint>;
  intervalMs: number;
  /** the entries that changed in one round */
  onChange: (changed: HealthEntry[]) => void;
  /** every round's results, changed or not, and when they were taken (the admin UI's last check) */
  onRound?: (results: HealthEntry[], at: number) => void;
}

export interface HealthChecks {
  /** the last known health of every checked agent */
  current(): HealthEntry[];
  /** rounds finished on the interval (the next one is then armed) */
  rounds(): number;
  stop(): void;
}

export function startHealthChecks(o: HealthOptions): HealthChecks {
  const state = new Map<string, HealthEntry>();
  let stopped = false;
  let cancel = () => {};
  let rounds = 0;

  const checkOne = async (name: string, endpoint: RemoteEndpoint): Promise<HealthEntry> => {
    const started = o.clock.now();
    try {
      await o.client.discover(endpoint, { fresh: true });
      return { name, up: true, latencyMs: Math.max(0, o.clock.now() - started) };
    } catch (e) {
      return { name, up: false, error: errorText(e).slice(0, 1000) };
    }
  };

  const round = async () => {
    const results = await Promise.all([...o.endpoints].map(([name, ep]) => checkOne(name, ep)));
    if (stopped) return;
    const changed = results.filter((r) => state.get(r.name)?.up !== r.up);
    for (const r of results) state.set(r.name, r);
    o.onRound?.(results, o.clock.now());
    if (changed.length === 0) return;
    for (const c of changed) o.log(c.up ? 'local agent up' : 'local agent down', { agent: c.name, ...(c.error && { error: c.error }) });
    try {
      o.onChange(changed);
    } catch (e) {
      o.log('health report failed', { error: errorText(e) });
    }
  };

  const next = () => {
    if (stopped) return;
    cancel = o.timers.after(o.intervalMs, () => void round().finally(next));
    rounds++;
  };
  void round().finally(next);

  return {
    current: () => [...state.values()],
    rounds: () => rounds,
    stop() {
      stopped = true;
      cancel();
    },
  };
}
