// Health checks of the local agents: one supervised XState actor per agent reads its card (past the cache) every
// interval; a change of its health is reported, so the gateway shows each agent up or down. A check itself never
// throws (a failed read is "down"); a crash of an actor's logic is its supervisor's business: the actor is restarted,
// keeping the last known state, and the other agents' actors and the tunnel go on as they were.
import { assign, createActor, fromPromise, setup } from 'xstate';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import type { Clock, Timers } from '../src/runtime/clock.js';
import { errorText, type Log, loggedText } from '../src/runtime/log.js';
import type { HealthEntry } from './session.js';
import { type Supervised, supervise } from './supervisor.js';

export interface HealthOptions {
  client: A2AClient;
  clock: Clock;
  timers: Timers;
  log: Log;
  endpoints: ReadonlyMap<string, RemoteEndpoint>;
  intervalMs: number;
  /** the entries that changed (one agent's at a time) */
  onChange: (changed: HealthEntry[]) => void;
  /**
   * Fault injection, for tests only (never set from the config): called inside an agent's actor as it takes a check's
   * result; a throw crashes that actor as a bug in its logic would.
   */
  fault?: (agent: string) => void;
  /** restart bounds of each agent's supervisor (see supervisor.ts) */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** every check's result, changed or not, and when it was taken (the admin UI's last check) */
  onRound?: (results: HealthEntry[], at: number) => void;
}

export interface HealthChecks {
  /** the last known health of every checked agent */
  current(): HealthEntry[];
  /** rounds finished: checks done by the agent checked least (the next one is then armed) */
  rounds(): number;
  /** restarts of each agent's actor after a crash */
  restarts(): Record<string, number>;
  stop(): void;
}

interface AgentHealthDeps {
  name: string;
  endpoint: RemoteEndpoint;
  client: A2AClient;
  clock: Clock;
  intervalMs: number;
  /** the last known entry, kept outside the actor so that a restarted actor reports only a real change */
  last: () => HealthEntry | undefined;
  /** a check's result taken in (stored, counted, reported when it changed) */
  take: (entry: HealthEntry, changed: boolean) => void;
  fault?: (agent: string) => void;
}

async function checkOne(d: AgentHealthDeps): Promise<HealthEntry> {
  const started = d.clock.now();
  try {
    await d.client.discover(d.endpoint, { fresh: true });
    return { name: d.name, up: true, latencyMs: Math.max(0, d.clock.now() - started) };
  } catch (e) {
    return { name: d.name, up: false, error: errorText(e).slice(0, 1000) };
  }
}

/**
 * Whether a check's result is news: the agent went up or down, or it is still down for another reason (refused, then
 * HTTP 500): the gateway and the logs then name the new error. A repeat of the same state is not.
 */
const changedHealth = (was: HealthEntry | undefined, now: HealthEntry): boolean => was?.up !== now.up || (!now.up && was.error !== now.error);

/** One agent's health: checking (its card read) → up or down → after the interval, checking again. */
export function createAgentHealthMachine(d: AgentHealthDeps) {
  return setup({
    types: {} as { context: { entry: HealthEntry | undefined } },
    actors: { check: fromPromise<HealthEntry>(() => checkOne(d)) },
    delays: { interval: () => d.intervalMs },
    actions: {
      take: assign((_, entry: HealthEntry) => {
        d.fault?.(d.name);
        d.take(entry, changedHealth(d.last(), entry));
        return { entry };
      }),
    },
    guards: { up: (_, entry: HealthEntry) => entry.up },
  }).createMachine({
    id: `health-${d.name}`,
    context: () => ({ entry: d.last() }),
    initial: 'checking',
    states: {
      checking: {
        // checkOne catches every failure of the read: a rejection here is a bug, and crashes the actor (no onError)
        invoke: {
          src: 'check',
          onDone: [
            { guard: { type: 'up', params: ({ event }) => event.output }, target: 'up', actions: { type: 'take', params: ({ event }) => event.output } },
            { target: 'down', actions: { type: 'take', params: ({ event }) => event.output } },
          ],
        },
      },
      up: { after: { interval: 'checking' } },
      down: { after: { interval: 'checking' } },
    },
  });
}

/** XState's clock over the injected timers. */
export const actorClock = (timers: Timers) => ({
  setTimeout: (fn: () => void, ms: number) => timers.after(ms, fn),
  clearTimeout: (cancel: () => void) => cancel(),
});

export function startHealthChecks(o: HealthOptions): HealthChecks {
  const state = new Map<string, HealthEntry>();
  const checks = new Map<string, number>();
  let stopped = false;

  const take = (entry: HealthEntry, changed: boolean) => {
    if (stopped) return;
    state.set(entry.name, entry);
    checks.set(entry.name, (checks.get(entry.name) ?? 0) + 1);
    o.onRound?.([entry], o.clock.now());
    if (!changed) return;
    o.log(entry.up ? 'local agent up' : 'local agent down', { agent: entry.name, ...(entry.error && { error: loggedText(entry.error) }) });
    try {
      o.onChange([entry]);
    } catch (e) {
      o.log('health report failed', { error: errorText(e) });
    }
  };

  const children = new Map<string, Supervised<ReturnType<typeof createActor<ReturnType<typeof createAgentHealthMachine>>>>>();
  for (const [name, endpoint] of o.endpoints) {
    const machine = createAgentHealthMachine({
      name,
      endpoint,
      client: o.client,
      clock: o.clock,
      intervalMs: o.intervalMs,
      last: () => state.get(name),
      take,
      ...(o.fault && { fault: o.fault }),
    });
    children.set(
      name,
      supervise({
        name: `health ${name}`,
        log: o.log,
        clock: o.clock,
        timers: o.timers,
        ...(o.maxRestarts !== undefined && { maxRestarts: o.maxRestarts }),
        ...(o.restartWindowMs !== undefined && { windowMs: o.restartWindowMs }),
        create: () => {
          const actor = createActor(machine, { clock: actorClock(o.timers) });
          // an errored actor's check still in flight must not count: its result is dropped by XState (the actor is done)
          return { actor, dispose: () => actor.stop() };
        },
      }),
    );
  }

  return {
    current: () => [...state.values()],
    rounds: () => (children.size === 0 ? 0 : Math.min(...[...children.keys()].map((n) => checks.get(n) ?? 0))),
    restarts: () => Object.fromEntries([...children].map(([n, s]) => [n, s.restarts()])),
    stop() {
      stopped = true;
      for (const c of children.values()) c.stop();
    },
  };
}
