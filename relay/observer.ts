// What the relay core tells its watchers (the admin UI, its metrics, the debug log): tunnel changes, each health round,
// each turn with its request and answer. The one coupling between the core and relay/admin: the core calls these,
// never the reverse. A watcher that throws is logged and ignored: watching never breaks a turn or the tunnel.
import type { AgentEvent } from '../src/protocol/agent-events.js';
import type { RelayFrame } from '../src/protocol/tunnel.js';
import { errorText, type Log } from '../src/runtime/log.js';
import type { RunFrame, TurnResult } from './turn.js';

/** The tunnel's supervisor state: session (connecting, or up since `upSince`), waiting (to retry), spent, stopped. */
/** one local agent's health check (as the health frame carries it) */
export type HealthEntry = Extract<RelayFrame, { t: 'health' }>['agents'][number];

export interface TunnelView {
  /** session (connecting or up), waiting, spent, stopped, or crashed (its restart waits for the supervisor) */
  state: string;
  upSince: number | undefined;
  /** restarts of the tunnel's actor after a crash */
  restarts: number;
  failures: number;
  lastError: string | undefined;
  delayMs: number;
  nextRetryAt: number | undefined;
  /** the wait the gateway asked for with Retry-After when it refused the last attempt (delayMs honours it, up to the cap) */
  retryAfterMs: number | undefined;
}

export interface TurnStart {
  frame: RunFrame;
  /** the local agent's URL the turn goes to */
  url: string;
  at: number;
  /** set when the turn is a replay from the admin UI: the logged turn it repeats */
  replayOf?: string;
}

export interface TurnWatch {
  event(ev: AgentEvent): void;
  end(r: TurnResult, at: number): void;
}

export interface RelayObserver {
  tunnel?(v: TunnelView): void;
  /** every health round: each checked agent's result, checked at `at` */
  health?(round: HealthEntry[], at: number): void;
  /** a turn begins; the watch returned sees its events and its end */
  turn?(start: TurnStart): TurnWatch | undefined;
}

/** Several observers as one, each call guarded. */
export function combineObservers(log: Log, ...list: Array<RelayObserver | undefined>): RelayObserver {
  const all = list.filter((o): o is RelayObserver => o !== undefined);
  const guard = (f: () => void) => {
    try {
      f();
    } catch (e) {
      log('relay observer failed', { error: errorText(e) });
    }
  };
  return {
    tunnel: (v) => {
      for (const o of all) guard(() => o.tunnel?.(v));
    },
    health: (round, at) => {
      for (const o of all) guard(() => o.health?.(round, at));
    },
    turn: (start) => {
      const watches: TurnWatch[] = [];
      for (const o of all)
        guard(() => {
          const w = o.turn?.(start);
          if (w) watches.push(w);
        });
      if (watches.length === 0) return undefined;
      return {
        event: (ev) => {
          for (const w of watches) guard(() => w.event(ev));
        },
        end: (r, at) => {
          for (const w of watches) guard(() => w.end(r, at));
        },
      };
    },
  };
}
