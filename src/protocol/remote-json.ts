// A remote's JSON as the gateway reads it: parsed, with each lone UTF-16 surrogate (a `\uD800`-style escape without
// its pair) read as U+FFFD. UTF-8 cannot carry one: the stores' msgpack wrote it as U+FFFD (three of them, msgpackr's
// way) while the answer to our caller and LMDB's task record kept it, so the text a caller was answered, the one a
// later read showed and the stored result differed, and differently per store. Made well-formed once, where the
// remote's text comes in, every caller and both stores see the same text.
import { hasLoneSurrogate, wellFormed } from './json-depth.js';
import { pathText, remoteFindings, type SkipPath } from './json-text.js';
import { shownPath } from './one-line.js';

/** Where a lone surrogate may come from: an escape of a surrogate in the text (pairs match too), or one already in it. */
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]|\p{Cs}/u;

/**
 * JSON.parse's reviver: strings, then (children first) the keys of each object, made well-formed; `seen.replaced` says
 * whether anything was.
 */
const reviver =
  (seen: { replaced: boolean }) =>
  (_key: string, v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!hasLoneSurrogate(v)) return v;
      seen.replaced = true;
      return wellFormed(v);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.keys(v).some(hasLoneSurrogate)) return v;
    seen.replaced = true;
    // two keys that differ only in their lone surrogates become one (the later wins): the text pass counts them as a
    // key named twice (remoteFindings compares keys made well-formed the same way), so such an answer is refused
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), x]));
  };

/** Parses a remote's JSON text (throws as JSON.parse does); its strings and keys come out well-formed Unicode. */
export function parseRemoteJson(text: string): unknown {
  return readRemoteJson(text).value;
}

/**
 * A remote's JSON as the gateway reads it (`value`, as parseRemoteJson), and, only when a lone surrogate was made
 * U+FFFD, `asSent`: the same JSON as sent. Text may be read as U+FFFD, but an id may not: the remote knows its task by
 * the id it sent, so the client checks the ids it takes against `asSent` (a2a-client/belongs.ts, `keptIds`).
 */
export function readRemoteJson(raw: string): { value: unknown; asSent?: unknown } {
  // a leading byte order mark is no part of the JSON (RFC 8259 lets a reader ignore it; some servers write one)
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  // the reviver costs a call per value: only text that may hold a surrogate pays it
  if (!MAY_HOLD_SURROGATE.test(text)) return { value: JSON.parse(text) };
  const seen = { replaced: false };
  const value: unknown = JSON.parse(text, reviver(seen));
  // a well-formed pair matches MAY_HOLD_SURROGATE too: the text is parsed again as sent only when something was replaced
  return seen.replaced ? { value, asSent: JSON.parse(text) } : { value };
}

/**
 * What the client refuses in a remote's JSON text (`parsed` is what it read), in words naming the path, after "the
 * remote's answer to X" or "the Agent Card at Y"; undefined when nothing. A key named twice: JSON.parse keeps the
 * last, other readers the first (a log or proxy between us and the remote, the remote's own tests), so what we act on
 * and show could differ from what they saw. An integer past ±(2^53 − 1): JSON.parse rounds it, so what we show,
 * store and pass on would have other digits than the remote sent.
 */
export function unkeptInRemoteJson(text: string, parsed: unknown, skip?: SkipPath): string | undefined {
  const f = remoteFindings(text, parsed, skip);
  if (f.duplicateKey !== undefined)
    return `names the key at ${shownPath(pathText(f.duplicateKey))} twice in one object: JSON readers differ on which of them counts`;
  if (f.unsafeInteger !== undefined)
    return `holds an integer past ±${Number.MAX_SAFE_INTEGER} (2^53 − 1) at ${shownPath(pathText(f.unsafeInteger))}: read as a double it would lose digits`;
  return undefined;
}
