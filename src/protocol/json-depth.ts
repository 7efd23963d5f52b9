// What accepted JSON may be: nested at most so deep, and (for values that did not come from JSON.parse) plain data only.
//
// Deep nesting costs nothing to send (2,000 levels fit in 12 KB) but every recursive reader on the way (the store's
// serializer, the sanitizer, JSON.stringify) spends stack on it; past a few thousand levels one of them overflows.

/** Levels of objects and arrays a request's `params` may nest (the params object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** The path of the first value nested deeper than `limit` (`params.a.0.b`), or undefined. Iterative: no stack spent. */
export function tooDeepAt(value: unknown, o: { limit: number; root: string }): string | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 1, path: o.root }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > o.limit) return path;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'object' && v[i] !== null) stack.push({ v: v[i], depth: depth + 1, path: `${path}.${i}` });
    } else {
      for (const k in v) {
        const child = (v as Record<string, unknown>)[k];
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
