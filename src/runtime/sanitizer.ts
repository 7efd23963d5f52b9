// The one exit filter: removes the spec's internal fields at any depth from every response, event and webhook body.

export const INTERNAL_FIELDS: ReadonlySet<string> = new Set([
  'workspace_id',
  'user_id',
  'internal_task_id',
  'system_prompt',
  'cost_breakdown',
  'model_config',
  'browser_session_id',
  'memory_document',
  'api_key_id',
]);

// A JSON.stringify replacer strips during serialization, so the exit costs no extra walk over the body.
function replacer(key: string, value: unknown): unknown {
  return INTERNAL_FIELDS.has(key) ? undefined : value;
}

/** Serializes `value` to JSON without any internal field, at any depth. */
export function toSanitizedJson(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/** A deep copy of `value` without any internal field (for objects handed on rather than serialized). */
export function sanitize<T>(value: T): T {
  return JSON.parse(toSanitizedJson(value)) as T;
}
