// Keeps a connection's secrets out of what comes back from its remote. A remote that echoes our credential (an error
// "invalid key <key>", an echo of its request headers, a card built from them) would otherwise hand it to our callers,
// the stored results, the logs and the admin API's status: every answer, event and error leaving the client is
// scrubbed of the endpoint's secrets first.
import { OutboundError } from './types.js';

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not looked for: replacing every "1234" in a remote's answers would mangle ordinary
 * text, and a secret that short is guessed sooner than echoed (docs/decisions.md, "Client mode: secrets echoed back").
 */
export const MIN_SCRUBBED_LENGTH = 8;

/** The secrets worth looking for, longest first (a secret that contains another is replaced whole). */
export function scrubbable(secrets: Iterable<string>): string[] {
  return [...new Set(secrets)].filter((s) => s.length >= MIN_SCRUBBED_LENGTH).sort((a, b) => b.length - a.length);
}

const holds = (s: string, secrets: readonly string[]): boolean => secrets.some((x) => s.includes(x));

export function scrubText(s: string, secrets: readonly string[]): string {
  if (!holds(s, secrets)) return s;
  let out = s;
  for (const x of secrets) out = out.split(x).join(REDACTED);
  return out;
}

/** Whether any string of `v` (keys too) holds a secret. Iterative: a value of any depth costs no stack. */
function anyHeld(v: unknown, secrets: readonly string[]): boolean {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === 'string') {
      if (holds(x, secrets)) return true;
    } else if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
    } else if (typeof x === 'object' && x !== null) {
      for (const k in x) {
        if (holds(k, secrets)) return true;
        stack.push((x as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** A copy of plain JSON data with every secret replaced (only what is walked here is copied). */
function rebuilt(v: unknown, secrets: readonly string[]): unknown {
  if (typeof v === 'string') return scrubText(v, secrets);
  if (Array.isArray(v)) return v.map((x) => rebuilt(x, secrets));
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k in v) out[scrubText(k, secrets)] = rebuilt((v as Record<string, unknown>)[k], secrets);
  return out;
}

/**
 * `v` with every secret replaced; `v` itself (nothing allocated) when it holds none, the common case. `v` is data
 * as decoded from JSON, nested within the client's answer bound (the copy recurses).
 */
export function scrubValue<T>(v: T, secrets: readonly string[]): T {
  if (secrets.length === 0 || !anyHeld(v, secrets)) return v;
  return rebuilt(v, secrets) as T;
}

/** Whether the message of `e` or of any error in its cause chain holds a secret. */
function chainHolds(e: unknown, secrets: readonly string[]): boolean {
  for (let x = e, n = 0; x instanceof Error && n < 16; x = x.cause, n++) if (holds(x.message, secrets)) return true;
  return false;
}

/** The error with its message scrubbed; when a secret was in it or in its causes, without the causes (a log may print them). */
export function scrubError(e: OutboundError, secrets: readonly string[]): OutboundError {
  if (secrets.length === 0 || !chainHolds(e, secrets)) return e;
  return new OutboundError(e.code, scrubText(e.message, secrets), {
    ...(e.remoteCode !== undefined && { remoteCode: e.remoteCode }),
    ...(e.httpStatus !== undefined && { httpStatus: e.httpStatus }),
    ...(e.retryAfterMs !== undefined && { retryAfterMs: e.retryAfterMs }),
  });
}
