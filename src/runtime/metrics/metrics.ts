// The gateway's Prometheus metrics (prom-client): the counters the hot path bumps, and the gauges read only on a scrape.
// Cheap on the hot path: per-call counters and the latency histogram are tallies (plain numbers, see tally.ts).
import { Counter, Gauge, Registry } from 'prom-client';
import { collectProcessMetrics } from './process-metrics.js';
import { CounterTally, HistogramTally } from './tally.js';

/** What a scrape reads from the live parts (never on the hot path): each returns label values -> count. */
export interface MetricSources {
  /** live tasks on this instance by state */
  tasksByState?: () => Record<string, number>;
  /** outbound connections' actors by state (ready, backing-off, circuit-open, ...) */
  connectionsByState?: () => Record<string, number>;
  /** relay agents by `up` (online and its local agent healthy) or `down` */
  relayAgents?: () => { up: number; down: number };
  /** the agent worker pool's own counters (its `stats()`) */
  agentPool?: () => AgentPoolCounts;
}

/** What the metrics read of the agent pool: the shape of its stats, kept here so metrics need not import the pool. */
export interface AgentPoolCounts {
  threads: number;
  queued: number;
  inFlight: number;
  succeeded: number;
  failed: Record<string, number>;
  workers: { created: number; destroyed: number; recycled: number };
}

export interface GatewayMetrics {
  /** one JSON-RPC call: its method (bounded: unknown methods are `unknown`), outcome (`ok` or the error's reason) and duration */
  call(method: string, outcome: string, seconds: number): void;
  /** the limiter refused a call, in this window */
  rateLimited(window: string): void;
  /** an SSE stream opened (+1) or ended (-1) */
  streams(delta: 1 | -1): void;
  /** one webhook delivery attempt and what became of its job */
  pushAttempt(result: string): void;
  /** one outbound call over a connection, and how it ended (`ok` or the error's code) */
  outboundCall(outcome: string): void;
  /** a relay tunnel opened (+1) or closed (-1) */
  tunnels(delta: 1 | -1): void;
  /** where scrape-time gauges read from (set once the parts exist) */
  sources(s: MetricSources): void;
  /** the Prometheus text exposition */
  text(): Promise<string>;
  readonly contentType: string;
  /** the gateway closed: the process metrics' event-loop monitor and GC observer stop (what was counted stays readable) */
  close(): void;
}

/** For a gateway started with metrics off (and the bench's comparison): every call is a no-op. */
export const noMetrics: GatewayMetrics = {
  call: () => undefined,
  rateLimited: () => undefined,
  streams: () => undefined,
  pushAttempt: () => undefined,
  outboundCall: () => undefined,
  tunnels: () => undefined,
  sources: () => undefined,
  text: async () => '',
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  close: () => undefined,
};

/** Latency buckets for a gateway call, in seconds: a quick task is a few ms, a blocking one may take seconds. */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function setAll(g: Gauge<string>, label: string, values: Record<string, number>, known: readonly string[]): void {
  g.reset();
  // known label values are always there (a state with no task reads 0, not absent)
  for (const k of known) g.set({ [label]: k }, 0);
  for (const k in values) g.set({ [label]: k }, values[k] ?? 0);
}

const TASK_STATES = ['submitted', 'working', 'input-required'];

/** A counter whose value is the pool's own running total, read at scrape time. */
function totalFrom(registry: Registry, o: { name: string; help: string; labelName?: string; read: () => Record<string, number> | number | undefined }) {
  return new Counter({
    name: o.name,
    help: o.help,
    labelNames: o.labelName ? [o.labelName] : [],
    registers: [registry],
    collect() {
      const v = o.read();
      this.reset();
      if (v === undefined) return;
      if (typeof v === 'number') this.inc(v);
      else if (o.labelName) for (const k in v) this.inc({ [o.labelName]: k }, v[k] ?? 0);
    },
  });
}
const CONNECTION_STATES = ['discovering', 'ready', 'backing-off', 'circuit-open', 'half-open'];

export function createMetrics(o: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  const processMetrics = o.defaultMetrics !== false ? collectProcessMetrics({ registry, prefix: 'a2a_' }) : undefined;
  let src: MetricSources = {};

  const requests = new CounterTally({
    registry,
    name: 'a2a_requests_total',
    help: 'JSON-RPC calls by method and outcome (ok, or the error reason)',
    labelNames: ['method', 'outcome'],
  });
  const latency = new HistogramTally({
    registry,
    name: 'a2a_request_duration_seconds',
    help: 'JSON-RPC call duration by method',
    labelName: 'method',
    buckets: CALL_BUCKETS,
  });
  const limited = new CounterTally({
    registry,
    name: 'a2a_rate_limit_refusals_total',
    help: 'calls refused by the rate limiter, by window',
    labelNames: ['window'],
  });
  const sse = new Gauge({ name: 'a2a_sse_streams_open', help: 'SSE streams open now', registers: [registry] });
  const push = new CounterTally({
    registry,
    name: 'a2a_push_deliveries_total',
    help: 'webhook delivery attempts by result (delivered, retry, gave-up, disabled, released)',
    labelNames: ['result'],
  });
  const outbound = new CounterTally({
    registry,
    name: 'a2a_outbound_calls_total',
    help: 'outbound calls over connections by outcome (ok, or the error code)',
    labelNames: ['outcome'],
  });
  const tunnels = new Gauge({ name: 'a2a_relay_tunnels_open', help: 'relay tunnels connected now', registers: [registry] });
  new Gauge({
    name: 'a2a_tasks_active',
    help: 'live (not settled) tasks on this instance by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      setAll(this, 'state', src.tasksByState?.() ?? {}, TASK_STATES);
    },
  });
  new Gauge({
    name: 'a2a_connections',
    help: "outbound connections by their actor's state (circuit-open: calls refused at once)",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      setAll(this, 'state', src.connectionsByState?.() ?? {}, CONNECTION_STATES);
    },
  });
  new Gauge({
    name: 'a2a_relay_agents',
    help: 'relay agents by whether they take turns now (up: relay connected and local agent healthy)',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      const r = src.relayAgents?.() ?? { up: 0, down: 0 };
      setAll(this, 'status', { up: r.up, down: r.down }, []);
    },
  });

  // the agent pool: its threads and queue now, and its runs and worker turnover since start (a worker ended is a
  // timeout, a cancel, a crash or a recycle: the runs' outcomes say which)
  const pool = () => src.agentPool?.();
  for (const [name, help, read] of [
    ['a2a_agent_pool_threads', 'agent worker threads running now', () => pool()?.threads],
    ['a2a_agent_pool_queued', 'agent turns waiting for a worker thread now', () => pool()?.queued],
    ['a2a_agent_runs_in_flight', 'agent turns accepted by the pool and not yet ended (queued ones included)', () => pool()?.inFlight],
  ] as const) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read() ?? 0);
      },
    });
  }
  totalFrom(registry, {
    name: 'a2a_agent_runs_total',
    help: 'agent turns run by the worker pool, by outcome (ok, or the reason the turn failed: timeout, canceled, worker_crash, ...)',
    labelName: 'outcome',
    read: () => {
      const p = pool();
      return p && { ok: p.succeeded, ...p.failed };
    },
  });
  totalFrom(registry, { name: 'a2a_agent_workers_started_total', help: 'agent worker threads started', read: () => pool()?.workers.created });
  totalFrom(registry, {
    name: 'a2a_agent_workers_ended_total',
    help: 'agent worker threads ended (a timeout, cancel, crash or recycle ends one; an idle thread above minThreads ends too)',
    read: () => pool()?.workers.destroyed,
  });
  totalFrom(registry, {
    name: 'a2a_agent_workers_recycled_total',
    help: 'agent worker threads ended after a module turn that left a timer, socket or the like running in them',
    read: () => pool()?.workers.recycled,
  });

  return {
    call(method, outcome, seconds) {
      requests.inc(method, outcome);
      latency.observe(method, seconds);
    },
    rateLimited: (w) => limited.inc(w),
    streams: (d) => sse.inc(d),
    pushAttempt: (r) => push.inc(r),
    outboundCall: (o) => outbound.inc(o),
    tunnels: (d) => tunnels.inc(d),
    sources(s) {
      src = s;
    },
    text: () => registry.metrics(),
    contentType: registry.contentType,
    close: () => processMetrics?.stop(),
  };
}
