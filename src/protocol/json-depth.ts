// The nesting bound of accepted JSON: values nested deeper than this are refused before anything stores or echoes them.
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
