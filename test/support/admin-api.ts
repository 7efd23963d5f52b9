// Test support: one call to the JSON admin API (/api/admin) of a running gateway over HTTP, with the credentials a
// dashboard page or a script presents (Bearer key, session cookie, CSRF token), and a sign-in that reads the session
// cookie and token back. Shared by the dashboard tests so each one checks the API, not its own copy of a client.

/** What one admin call presents: a JSON body, or a raw one with its content type for the content-type rules. */
export interface AdminCallOptions {
  bearer?: string;
  cookie?: string;
  csrf?: string;
  /** sent as JSON */
  body?: unknown;
  /** sent as it is, with `type` (default application/json) */
  raw?: string;
  type?: string;
  headers?: Record<string, string>;
}

/** One admin call to the gateway at `g.url`: the status, the headers and the parsed JSON body (undefined when empty). */
export async function adminCall(g: { url: string }, method: string, path: string, o: AdminCallOptions = {}) {
  const res = await fetch(`${g.url}/api/admin${path}`, {
    method,
    headers: {
      ...(o.bearer && { Authorization: `Bearer ${o.bearer}` }),
      ...(o.cookie && { Cookie: o.cookie }),
      ...(o.csrf && { 'X-CSRF-Token': o.csrf }),
      ...((o.body !== undefined || o.raw !== undefined) && { 'Content-Type': o.type ?? 'application/json' }),
      ...o.headers,
    },
    body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** Signs in with an admin key (POST /session): the reply, with the session cookie and the CSRF token it gave. */
export async function adminSignIn(g: { url: string }, key: string, headers: Record<string, string> = {}) {
  const r = await adminCall(g, 'POST', '/session', { body: { key }, headers });
  return { ...r, cookie: (r.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: r.json?.csrf as string };
}
