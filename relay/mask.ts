// Keys out of what the relay shows or logs: a string that looks like a gateway key, and the relay's own key wherever
// it appears (a local agent's error may echo the Authorization it was sent).
import { KEY_LIKE } from '../src/runtime/log.js';

/** `text` with every key in it masked; secrets shorter than 8 characters are not searched for (too many false hits). */
export function maskedText(text: string, secrets: readonly string[]): string;
export function maskedText(text: string | undefined, secrets: readonly string[]): string | undefined;
export function maskedText(text: string | undefined, secrets: readonly string[]): string | undefined {
  if (text === undefined) return undefined;
  let out = text.replace(KEY_LIKE, '[redacted key]');
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[redacted key]');
  return out;
}
