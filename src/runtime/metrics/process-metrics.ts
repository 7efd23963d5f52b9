// prom-client's default metrics (process, heap, event loop, GC) on one registry, and the way to stop them. Two of them
// keep working once registered, scraped or not: an event-loop delay monitor sampling every 10 ms and a
// PerformanceObserver on every GC. prom-client keeps no handle on either (and has no way to leave them out), so each
// is caught as collectDefaultMetrics makes it, to be stopped with the gateway: otherwise every gateway started and
// closed in one process (an embedding host, a test run) leaves one of each running for good.
import { createRequire } from 'node:module';
import type { IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { collectDefaultMetrics, type Registry } from 'prom-client';

/** The CommonJS perf_hooks object, which prom-client reads both from at the moment it calls them. */
interface PerfHooks {
  monitorEventLoopDelay: typeof monitorEventLoopDelay;
  PerformanceObserver: typeof PerformanceObserver;
}
const perfHooks = createRequire(import.meta.url)('node:perf_hooks') as PerfHooks;

export interface ProcessMetrics {
  /** Disables the event-loop monitor and disconnects the GC observer (their gauges then read as of the last sample). */
  stop(): void;
}

export function collectProcessMetrics(o: { registry: Registry; prefix: string }): ProcessMetrics {
  const monitors: IntervalHistogram[] = [];
  const observers: PerformanceObserver[] = [];
  const { monitorEventLoopDelay: makeMonitor, PerformanceObserver: Observer } = perfHooks;
  // swapped only for this synchronous call, so nothing else in the process can be handed the wrappers
  perfHooks.monitorEventLoopDelay = (opts) => {
    const h = makeMonitor(opts);
    monitors.push(h);
    return h;
  };
  perfHooks.PerformanceObserver = class CaughtObserver extends Observer {
    constructor(callback: ConstructorParameters<typeof PerformanceObserver>[0]) {
      super(callback);
      observers.push(this);
    }
  };
  try {
    collectDefaultMetrics({ register: o.registry, prefix: o.prefix });
  } finally {
    perfHooks.monitorEventLoopDelay = makeMonitor;
    perfHooks.PerformanceObserver = Observer;
  }
  return {
    stop() {
      for (const h of monitors.splice(0)) h.disable();
      for (const ob of observers.splice(0)) ob.disconnect();
    },
  };
}
