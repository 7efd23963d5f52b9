// Counters and histograms for the hot path: plain numbers bumped per call, turned into prom-client metrics only when
// the registry is scraped. prom-client's own labelled observe validates and hashes its labels on every call (about a
// microsecond); here a call is a Map read and an add. Registered as metrics of the registry, so the exposition (names,
// labels, escaping) is prom-client's.
import type { Metric, Registry } from 'prom-client';

type Row = { labels: Record<string, string>; n: number };
type Value = { labels: Record<string, string>; value: number; metricName?: string };

/** prom-client formats any registered object with `name`, `help`, `type` and `get()`; its Metric type names only its classes. */
function register(registry: Registry, m: { name: string; help: string; type: string; get(): Promise<unknown> }): void {
  registry.registerMetric({ ...m, aggregator: 'sum', reset: () => undefined } as unknown as Metric);
}

/** A counter with one or two labels. */
export class CounterTally {
  private readonly rows = new Map<string, Row>();

  constructor(o: { registry: Registry; name: string; help: string; labelNames: readonly [string] | readonly [string, string] }) {
    const { name, help } = o;
    const [first, second] = o.labelNames;
    this.label = (a, b) => (second === undefined ? { [first]: a } : { [first]: a, [second]: b ?? '' });
    register(o.registry, {
      name,
      help,
      type: 'counter',
      get: async () => ({ name, help, type: 'counter', values: [...this.rows.values()].map((r) => ({ labels: r.labels, value: r.n })) }),
    });
  }

  private readonly label: (a: string, b?: string) => Record<string, string>;

  inc(a: string, b?: string): void {
    const key = b === undefined ? a : `${a}\u0000${b}`;
    const row = this.rows.get(key);
    if (row) row.n++;
    else this.rows.set(key, { labels: this.label(a, b), n: 1 });
  }
}

type Series = { counts: number[]; sum: number; count: number };

/** A histogram with one label: per label value, a count per bucket (cumulated at scrape), the sum and the count. */
export class HistogramTally {
  private readonly series = new Map<string, Series>();

  constructor(private readonly o: { registry: Registry; name: string; help: string; labelName: string; buckets: readonly number[] }) {
    const { name, help } = o;
    register(o.registry, { name, help, type: 'histogram', get: async () => ({ name, help, type: 'histogram', values: this.values() }) });
  }

  observe(label: string, value: number): void {
    let s = this.series.get(label);
    if (!s) this.series.set(label, (s = { counts: new Array<number>(this.o.buckets.length + 1).fill(0), sum: 0, count: 0 }));
    const b = this.o.buckets;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  private values(): Value[] {
    const out: Value[] = [];
    const { name, labelName, buckets } = this.o;
    for (const [label, s] of this.series) {
      let cumulated = 0;
      buckets.forEach((le, i) => {
        cumulated += s.counts[i]!;
        out.push({ labels: { [labelName]: label, le: String(le) }, value: cumulated, metricName: `${name}_bucket` });
      });
      out.push({ labels: { [labelName]: label, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: { [labelName]: label }, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: { [labelName]: label }, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}
