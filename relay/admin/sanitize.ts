// What of a turn the admin UI may show: the gateway's exit filter (no internal fields), no key anywhere (a string that
// looks like one, or any value under a secret-sounding field), and a size cap, so one large turn cannot fill memory.
import { toSanitizedJson } from '../../src/runtime/sanitizer.js';
import { maskedText } from '../mask.js';

/** Bytes of one request or answer kept for the detail view. */
export const DETAIL_CAP = 16 * 1024;

const SECRET_FIELD = /^(authorization|api[_-]?key|token|access[_-]?token|refresh[_-]?token|password|secret|client[_-]?secret|cookie)$/i;

/** `value` as pretty JSON with secrets masked (the relay's own key too, wherever it appears) and capped at `cap` bytes. */
export function showable(value: unknown, o: { secrets: string[]; cap?: number }): string {
  const plain = JSON.parse(toSanitizedJson(value) ?? 'null') as unknown;
  const text = maskedText(
    JSON.stringify(plain, (k, v) => (SECRET_FIELD.test(k) && v !== null && v !== undefined ? '[redacted]' : v), 2),
    o.secrets,
  );
  const cap = o.cap ?? DETAIL_CAP;
  const bytes = Buffer.byteLength(text);
  if (bytes <= cap) return text;
  // cut on a character boundary, and say how much there was
  const cut = Buffer.from(text)
    .subarray(0, cap)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}\n… (cut at ${cap} bytes of ${bytes})`;
}
