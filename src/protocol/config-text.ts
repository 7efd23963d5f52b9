// What a config file's parse error may say: what is wrong and where, never the text around it (a file may hold a
// secret: the relay's api_key, a password in a Redis URL, and V8's and YAML's own messages quote the source). And a
// key a JSON file names twice, which JSON.parse takes as its last value without a word (YAML refuses it).
import { pathText, textFindings } from './json-text.js';

/** "line L, column C" of `offset` in `text` (both from 1). */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const line = before.split('\n').length;
  return `line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/**
 * JSON.parse's error for `text` without the excerpt of the text V8 puts in some messages
 * (`Unexpected token '}', ..."api_key": }" is not valid JSON`), its offset told as a line and column.
 */
export function jsonSyntaxText(e: unknown, text: string): string {
  const message = e instanceof Error ? e.message : String(e);
  const bare = message.replace(/,\s*(\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '').replace(/^"[\s\S]*"(\.\.\.)? is not valid JSON$/, 'not valid JSON');
  return bare.replace(/(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/, (_, at: string) => ` at ${lineColumn(text, Number(at))}`);
}

/** The path of the first key named twice in one object of `text` (a JSON object JSON.parse accepted), if any. */
export function jsonDuplicateKey(text: string): string | undefined {
  const path = textFindings(text).get(-1)?.duplicateKey;
  return path === undefined ? undefined : pathText(path);
}
