// The one exit filter: removes the spec's internal fields at any depth from every response, event and webhook body.
import { INTERNAL_FIELDS } from '../protocol/internal-fields.js';

// A JSON.stringify replacer strips during serialization, so the exit costs no extra walk over the body.
function replacer(key: string, value: unknown): unknown {
  return INTERNAL_FIELDS.has(key) ? undefined : value;
}

// An internal name as an object key in serialized JSON. Inside a string value the quotes would be escaped, so
// it only matches keys (a false alarm just takes the slow path).
const INTERNAL_KEY = new RegExp(`"(?:${[...INTERNAL_FIELDS].join('|')})":`);

/**
 * Serializes `value` to JSON without any internal field, at any depth. The codecs already leave the runtime's
 * own internal metadata out, so the common body serializes once at full speed and is only scanned; a body that
 * does carry an internal name somewhere (caller data, say) is serialized again with the stripping replacer.
 */
export function toSanitizedJson(value: unknown): string {
  const fast = JSON.stringify(value);
  if (fast === undefined || !INTERNAL_KEY.test(fast)) return fast;
  return JSON.stringify(value, replacer);
}
