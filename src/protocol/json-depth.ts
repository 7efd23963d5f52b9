// What accepted JSON may be: nested at most so deep, strings, keys and numbers the stores keep as sent (no lone
// surrogate, no `__proto__` key, no number past a double's range), and (for values that did not come from JSON.parse)
// plain data only.
//
// Deep nesting costs nothing to send (2,000 levels fit in 12 KB) but every recursive reader on the way (the store's
// serializer, the sanitizer, JSON.stringify) spends stack on it; past a few thousand levels one of them overflows.

/** Levels of objects and arrays a request's `params` may nest (the params object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** The path of the first value nested deeper than `limit` (`params.a.0.b`), or undefined. Iterative: no stack spent. */
export function tooDeepAt(value: unknown, o: { limit: number; root: string }): string | undefined {
  return jsonProblemAt(value, { ...o, text: false })?.path;
}

/**
 * What makes a caller's JSON unkeepable as sent. `lone-surrogate`: a string or key holding a `\uD800`-style escape
 * without its pair, which UTF-8 (the stores' msgpack, Redis keys) cannot carry: it would be stored as U+FFFD, so the
 * task read back differs from the one answered and two ids differing only there name one Redis task. `proto-key`: a
 * `__proto__` key, which the param schemas drop (JavaScript reads it as the prototype), so the caller's field would
 * vanish without a word. `non-finite`: a number past a double's range (`1e400`), which JSON.parse reads as Infinity: a
 * module agent would be handed Infinity, while every answer, webhook and remote agent reads null. `unsafe-integer`: an
 * integer written past ±(2^53 − 1), which JSON.parse rounds (12345678901234567890 reads as ...7000); only the text
 * shows it (`json-text.ts`), so it is found where the body is decoded, not by this walk.
 */
export type JsonProblem = { path: string; problem: 'depth' | 'lone-surrogate' | 'proto-key' | 'non-finite' | 'unsafe-integer' };

/** A value JSON text cannot carry back as it was sent: a string with a lone surrogate, a non-finite number. */
function unkeptScalar(v: unknown): JsonProblem['problem'] | undefined {
  if (typeof v === 'string') return hasLoneSurrogate(v) ? 'lone-surrogate' : undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : 'non-finite';
  return undefined;
}

/** A lone surrogate (with the u flag a well-formed pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);
const LONE_SURROGATES = /\p{Cs}/gu;

/** `s` with each lone surrogate as U+FFFD (a well-formed pair, one code point to the u flag, is kept): as UTF-8 carries it. */
export const wellFormed = (s: string): string => (hasLoneSurrogate(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s);

/**
 * The first problem of `value`: nested deeper than `limit`; with `text`, also a string or key with a lone surrogate, a
 * `__proto__` key or a non-finite number. One iterative walk (no stack spent); strings are tested in place, a path is built only for objects
 * and for the failing value.
 */
export function jsonProblemAt(value: unknown, o: { limit: number; root: string; text: boolean }): JsonProblem | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 1, path: o.root }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > o.limit) return { path, problem: 'depth' };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1, path: `${path}.${i}` });
        else if (o.text) {
          const problem = unkeptScalar(child);
          if (problem) return { path: `${path}.${i}`, problem };
        }
      }
    } else {
      for (const k in v) {
        const child = (v as Record<string, unknown>)[k];
        if (o.text) {
          if (k === '__proto__') return { path: `${path}.${k}`, problem: 'proto-key' };
          if (hasLoneSurrogate(k)) return { path: `${path}.${k}`, problem: 'lone-surrogate' };
          const problem = unkeptScalar(child);
          if (problem) return { path: `${path}.${k}`, problem };
        }
        if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1, path: `${path}.${k}` });
      }
    }
  }
  return undefined;
}

/** A value JSON can carry (objects and arrays are walked); undefined is an absent field, a non-finite number is null. */
const isJsonScalar = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number';

const isPlainObject = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * The path of the first value in `value` that JSON cannot carry (a BigInt, a Set, a Date, a typed array, ...) and what
 * it is; undefined when it is all plain data. For values that did not come from JSON.parse: msgpack's extensions decode
 * to such objects, and once stored each breaks (a BigInt: JSON.stringify throws) or silently changes every later read
 * of the record. Iterative: no stack spent.
 */
export function notJsonAt(value: unknown, root: string): { path: string; what: string } | undefined {
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: root }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (isJsonScalar(v)) continue;
    if (typeof v !== 'object' || v === null || (!Array.isArray(v) && !isPlainObject(v))) {
      return { path, what: typeof v === 'object' && v !== null ? Object.prototype.toString.call(v).slice(8, -1) : typeof v };
    }
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: `${path}.${i}` });
    else for (const k of Object.keys(v)) stack.push({ v: (v as Record<string, unknown>)[k], path: `${path}.${k}` });
  }
  return undefined;
}
