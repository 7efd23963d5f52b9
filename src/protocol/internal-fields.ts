// The spec's internal field names: never in anything the gateway sends out (the sanitizer enforces it at any depth).

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

/** Metadata without the internal fields at its top level, where the runtime keeps its own. */
export function publicMetadata(m: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k in m) {
    if (!INTERNAL_FIELDS.has(k)) continue;
    out ??= { ...m };
    delete out[k];
  }
  return out ?? m;
}
