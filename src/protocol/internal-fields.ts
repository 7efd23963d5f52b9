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
  // ours, not the spec's: the X-Request-Id of the call that created the task (operators match it to log lines)
  'request_id',
]);

/** Metadata without the internal fields at its top level, where the runtime keeps its own. */
export function publicMetadata(m: Record<string, unknown>): Record<string, unknown> {
  let internal = false;
  for (const k in m) {
    if (INTERNAL_FIELDS.has(k)) {
      internal = true;
      break;
    }
  }
  if (!internal) return m;
  // a copy built without them, not a copy with them deleted: `delete` leaves an object in V8's slow dictionary mode,
  // and this one is serialized next
  const out: Record<string, unknown> = {};
  for (const k in m) if (!INTERNAL_FIELDS.has(k)) out[k] = m[k];
  return out;
}

/**
 * What a push config's secrets (its `token`, its `authentication.credentials`, a password in its URL) read as: they
 * are write-only, so any key that may read the config learns that they are set, never their value.
 */
export const WRITE_ONLY_MASK = '********';

/**
 * A webhook URL as it reads: credentials in it (`user:password@`, refused since, but kept by configs stored before)
 * are masked like the token, `https://user:********@host/`; a user name alone is often a token and is masked whole.
 * Delivery uses the stored URL.
 */
export function maskedPushUrl(raw: string): string {
  if (!raw.includes('@') || !URL.canParse(raw)) return raw;
  const url = new URL(raw);
  if (url.username === '' && url.password === '') return raw;
  if (url.password !== '') url.password = WRITE_ONLY_MASK;
  else url.username = WRITE_ONLY_MASK;
  return url.href;
}

export function maskedPushSecrets(c: { url: string; token?: string; authentication?: { schemes: string[]; credentials?: string } }) {
  return {
    url: maskedPushUrl(c.url),
    ...(c.token !== undefined && { token: WRITE_ONLY_MASK }),
    ...(c.authentication !== undefined && {
      authentication: { schemes: c.authentication.schemes, ...(c.authentication.credentials !== undefined && { credentials: WRITE_ONLY_MASK }) },
    }),
  };
}
