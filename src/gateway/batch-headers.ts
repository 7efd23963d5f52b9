// The headers of a batch's one HTTP answer, from the headers each of its calls earned: a client reads the key's budget
// there as it does after a single call, whichever call of the batch came last.
const LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

const num = (h: Record<string, string>, name: string): number => Number(h[name] ?? 0);

/** Whether call headers `a` tell a tighter budget than `b`: a refusal first (the longer wait), then less remaining, then the later reset. */
function tighter(a: Record<string, string>, b: Record<string, string>): boolean {
  const aRefused = a['Retry-After'] !== undefined;
  if (aRefused !== (b['Retry-After'] !== undefined)) return aRefused;
  if (aRefused && num(a, 'Retry-After') !== num(b, 'Retry-After')) return num(a, 'Retry-After') > num(b, 'Retry-After');
  if (num(a, 'RateLimit-Remaining') !== num(b, 'RateLimit-Remaining')) return num(a, 'RateLimit-Remaining') < num(b, 'RateLimit-Remaining');
  return num(a, 'RateLimit-Reset') > num(b, 'RateLimit-Reset');
}

/**
 * Every call's headers (WWW-Authenticate of a refused key stays), with RateLimit-* of the tightest decision among the
 * calls that reached a limiter, and the longest Retry-After any call was given (a rate limit's, or a store outage's):
 * the last call alone may have been refused before the limiter (scope, unknown method) and carry none of them.
 */
export function batchHeaders(calls: readonly Record<string, string>[]): Record<string, string> {
  const out: Record<string, string> = Object.assign({}, ...calls);
  let tightest: Record<string, string> | undefined;
  for (const h of calls) if (h['RateLimit-Limit'] !== undefined && (tightest === undefined || tighter(h, tightest))) tightest = h;
  for (const name of LIMIT_HEADERS) {
    delete out[name];
    if (tightest?.[name] !== undefined) out[name] = tightest[name];
  }
  const waits = calls.flatMap((h) => (h['Retry-After'] === undefined ? [] : [Number(h['Retry-After'])]));
  if (waits.length > 0) out['Retry-After'] = String(Math.max(...waits));
  return out;
}
