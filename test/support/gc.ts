// Test support for process metrics: a forced, observed GC, and the sum of a metric's samples in a Prometheus text.
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The sum of every sample of `name` (all label sets) in a Prometheus text exposition. */
export const total = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

/** Runs a full GC and resolves once GC observers have been told of it (they are all told in one dispatch). */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const seen = new Promise<void>((resolve) => {
    const ob = new PerformanceObserver(() => {
      ob.disconnect();
      resolve();
    });
    ob.observe({ entryTypes: ['gc'] });
  });
  gc();
  await seen;
}
