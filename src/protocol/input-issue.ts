// How a refused input's first zod issue is told to whoever sent it (the admin API, the CLI): the path at fault, where
// an unknown field names itself rather than the object holding it, and the words: "is required", "is not a field
// here", or zod's own. Callers turn the path into their field names (a view's `expires_at`, a connection's settings).
import type { z } from 'zod';

export interface InputIssue {
  path: PropertyKey[];
  message: string;
}

export function firstIssue(error: z.ZodError): InputIssue {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') return { path: [...issue.path, issue.keys[0]!], message: 'is not a field here' };
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return { path: [...issue.path], message: 'is required' };
  return { path: [...issue.path], message: issue.message };
}
