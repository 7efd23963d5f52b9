// Input lists (a connection's agents, its allowed data types) in which an entry may appear once: a repeat is most
// likely a slip (a name typed twice where another was meant) and is refused, naming it, rather than kept or dropped.
import type { z } from 'zod';

export function listedOnce<T extends z.ZodArray<z.ZodType<string>>>(list: T): T {
  return list.superRefine((xs, ctx) => {
    const seen = new Set<string>();
    for (const [i, x] of xs.entries()) {
      if (seen.has(x)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(x)} is listed twice; list it once`, path: [i] });
      seen.add(x);
    }
  });
}
