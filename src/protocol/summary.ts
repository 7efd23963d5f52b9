// The short summary kept of a remote task's result: its text first, other parts described by kind and size, cut at a
// number of characters counted as code points (a surrogate pair is one character and is never split).
import type { Part } from './model.js';

/** What summarize reads of a task: its status message and its artifacts (either the internal Task or a RemoteTask). */
export interface Summarizable {
  status: { message?: { parts: readonly Part[] } };
  artifacts: ReadonlyArray<{ parts: readonly Part[] }>;
}

export const SUMMARY_LIMIT = 500;
const ELLIPSIS = '…';

/** The decoded size of base64 text (whitespace ignored). */
function base64Bytes(b64: string): number {
  const s = b64.replace(/\s+/g, '');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** e.g. "[file report.pdf, application/pdf, 12345 bytes]", "[data, 3 keys]". A file's URI is not shown: it may be signed. */
export function describePart(p: Exclude<Part, { kind: 'text' }>): string {
  if (p.kind === 'data') return `[data, ${plural(Object.keys(p.data).length, 'key')}]`;
  const f = p.file;
  const size = f.bytes !== undefined ? plural(base64Bytes(f.bytes), 'byte') : f.uri !== undefined ? 'by URI' : 'no content';
  return `[${['file', f.name].filter(Boolean).join(' ')}${f.mimeType ? `, ${f.mimeType}` : ''}, ${size}]`;
}

/** The first `limit` code points of `s`, with an ellipsis as the last one when something was cut. */
export function cutCodePoints(s: string, limit: number): string {
  // code points are at most 2 UTF-16 units: a string of at most `limit` units needs no counting
  if (s.length <= limit) return s;
  let count = 0;
  // UTF-16 units of the first limit - 1 code points: what is kept beside the ellipsis
  let keep = 0;
  for (const ch of s) {
    count++;
    if (count > limit) return limit === 0 ? '' : s.slice(0, keep) + ELLIPSIS;
    if (count < limit) keep += ch.length;
  }
  return s;
}

/**
 * At most `limit` characters: the text parts of the status message and of the artifacts, in that order, then every
 * other part described by kind and size; one line each.
 */
export function summarize(task: Summarizable, limit = SUMMARY_LIMIT): string {
  const parts = [...(task.status.message?.parts ?? []), ...task.artifacts.flatMap((a) => a.parts)];
  const lines: string[] = [];
  for (const p of parts) if (p.kind === 'text' && p.text !== '') lines.push(p.text);
  for (const p of parts) if (p.kind !== 'text') lines.push(describePart(p));
  return cutCodePoints(lines.join('\n'), limit);
}
