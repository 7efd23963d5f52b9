// The relay's Prometheus metrics (a registry of its own, so nothing else in the process adds to it): the tunnel's state,
// reconnects, turns by agent and outcome, the local agents' latency and health (fed as a RelayObserver); and the admin
// UI's own live streams: how many are open, how many were cut off for falling behind.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '../../src/runtime/metrics/process-metrics.js';
import type { RelayObserver, TunnelView, TurnStart } from '../observer.js';
import type { TurnResult } from '../turn.js';

const STATES = ['connecting', 'connected', 'backing_off', 'given_up', 'stopped'] as const;

const stateLabel = (v: TunnelView): (typeof STATES)[number] => {
  if (v.state === 'session') return v.upSince !== undefined ? 'connected' : 'connecting';
  if (v.state === 'waiting' || v.state === 'ended') return 'backing_off';
  return v.state === 'spent' ? 'given_up' : 'stopped';
};

export interface RelayMetrics extends RelayObserver {
  readonly registry: Registry;
  /** counts a live stream cut off for falling behind */
  streamCut(): void;
  /** stops the process metrics' event-loop monitor and GC observer (the admin UI closing) */
  stop(): void;
}

export interface RelayMetricsOptions {
  /** the admin UI's live streams open now (read at each scrape) */
  openStreams?: () => number;
  /** the admin UI's sign-in sessions kept now (read at each scrape) */
  sessions?: () => number;
}

export function createRelayMetrics(o: RelayMetricsOptions = {}): RelayMetrics {
  const registry = new Registry();
  const processMetrics = collectProcessMetrics({ registry, prefix: 'a2a_relay_' });
  const tunnelState = new Gauge({
    name: 'a2a_relay_tunnel_state',
    help: 'The tunnel state: 1 for the current one',
    labelNames: ['state'],
    registers: [registry],
  });
  const reconnects = new Counter({
    name: 'a2a_relay_tunnel_reconnects_total',
    help: 'Connection attempts after the tunnel was lost or refused',
    registers: [registry],
  });
  const turns = new Counter({
    name: 'a2a_relay_turns_total',
    help: 'Turns run against local agents, by agent and outcome',
    labelNames: ['agent', 'outcome'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'a2a_relay_local_latency_seconds',
    help: "A local agent's time to finish a turn",
    labelNames: ['agent'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const agentUp = new Gauge({
    name: 'a2a_relay_agent_up',
    help: "A local agent's last health check: 1 up, 0 down",
    labelNames: ['agent'],
    registers: [registry],
  });
  const openStreams = o.openStreams;
  new Gauge({
    name: 'a2a_relay_admin_streams',
    help: "The admin UI's live streams (/api/events) open now",
    registers: [registry],
    collect() {
      this.set(openStreams?.() ?? 0);
    },
  });
  const sessions = o.sessions;
  new Gauge({
    name: 'a2a_relay_admin_sessions',
    help: "The admin UI's sign-in sessions kept now (bounded; expired ones dropped)",
    registers: [registry],
    collect() {
      this.set(sessions?.() ?? 0);
    },
  });
  const streamsCut = new Counter({
    name: 'a2a_relay_admin_streams_cut_total',
    help: "The admin UI's live streams cut off because their reader fell too far behind",
    registers: [registry],
  });
  for (const s of STATES) tunnelState.set({ state: s }, 0);

  let last: string | undefined;
  return {
    registry,
    stop: () => processMetrics.stop(),
    streamCut: () => streamsCut.inc(),
    tunnel(v) {
      const now = stateLabel(v);
      if (now === last) return;
      if (last === 'backing_off' && now === 'connecting') reconnects.inc();
      for (const s of STATES) tunnelState.set({ state: s }, s === now ? 1 : 0);
      last = now;
    },
    health(round) {
      for (const r of round) agentUp.set({ agent: r.name }, r.up ? 1 : 0);
    },
    turn(start: TurnStart) {
      let input = false;
      return {
        event: (ev) => {
          if (ev.type === 'status') input = ev.state === 'input-required';
        },
        end: (r: TurnResult, at: number) => {
          const outcome = r.ok ? (input ? 'input-required' : 'completed') : r.reason === 'canceled' ? 'canceled' : 'failed';
          turns.inc({ agent: start.frame.agent, outcome });
          latency.observe({ agent: start.frame.agent }, Math.max(0, at - start.at) / 1000);
        },
      };
    },
  };
}
