// Reading a gateway's /metrics in tests: one scrape, and one sample of the Prometheus text by name and labels.
import type { Test } from 'tap';

/** The sample `name{labels} value` of a Prometheus text body, as a number (0 when absent). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '')
      .split(',')
      .filter(Boolean)
      .filter((l) => !l.startsWith('le='))
      .sort();
    if (have.length === want.length && have.every((l, i) => l === want[i])) return Number(m[3]);
  }
  return 0;
}

/** GET /metrics, asserting it answers as Prometheus text. */
export const scrape = async (t: Test, url: string): Promise<string> => {
  const res = await fetch(`${url}/metrics`);
  t.equal(res.status, 200, '/metrics answers');
  t.match(res.headers.get('content-type') ?? '', /text\/plain/);
  return res.text();
};
