// Every Redis key name the limiter uses is built here and nowhere else.

/**
 * The minute and hour lists of one limited key. The `{key}` hash tag puts both in one cluster slot,
 * which a single script touching both requires.
 */
export function limiterKeys(prefix: string, key: string): [minute: string, hour: string] {
  const base = `${prefix}{${key}}`;
  return [`${base}:minute`, `${base}:hour`];
}

/** A SCAN pattern for everything under a prefix (tests and benches clean up with it). */
export function limiterKeyPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}
