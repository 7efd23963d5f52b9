// A cheap lower bound on a value's JSON size in bytes, for refusing output before it is copied or serialized.

/**
 * At least the UTF-8 bytes `JSON.stringify(value)` would take (escapes only add to it), counted without building the
 * text: a 300 MB string is measured, not copied. Stops counting once past `stopAbove`. Iterative: no stack spent.
 * Plain data only (the caller has checked it is JSON data and bounded its depth).
 */
export function jsonBytesAtLeast(value: unknown, stopAbove: number): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes <= stopAbove) {
    const v = stack.pop();
    // a UTF-16 code unit is at least one UTF-8 byte (a surrogate pair's two are four)
    if (typeof v === 'string') bytes += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean') bytes += String(v).length;
    else if (v === null) bytes += 4;
    else if (Array.isArray(v)) {
      bytes += 1 + v.length;
      for (const item of v) stack.push(item === undefined ? null : item);
    } else if (typeof v === 'object') {
      bytes += 1;
      for (const [k, item] of Object.entries(v)) {
        // JSON leaves out a key whose value is undefined
        if (item === undefined) continue;
        bytes += k.length + 4;
        stack.push(item);
      }
    }
  }
  return bytes;
}

/** How a value past a byte bound is refused, the same words in a worker and on the main thread. */
export const tooLargeText = (path: string, max: number): string => `${path}: larger than its limit of ${max} bytes (tasks.maxTaskBytes)`;
