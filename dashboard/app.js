// The gateway's dashboard: Preact with htm (no build step), served from the package. Every page reads and writes through
// the JSON admin API under /api/admin/ with the session cookie; mutations carry the session's CSRF token.
import { html, render, useCallback, useEffect, useRef, useState } from '/dashboard/vendor/preact-htm.js';

const session = { csrf: '', workspace: '' };

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') headers['X-CSRF-Token'] = session.csrf;
  const res = await fetch(`/api/admin${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.message || res.statusText), { status: res.status });
  return data;
}

const list = (s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
// origins are one a line or comma-separated (a pasted list reads either way)
const listOfLines = (s) =>
  (s ?? '')
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);
const OriginsInput = ({ value }) =>
  html`<label title="Origins besides the URL's that the remote's card may name for its endpoint (credentials go there too)">Allowed origins (one a line, or commas)<textarea name="allowed_origins" placeholder="https://api.example.com" rows="2" defaultValue=${value ?? ''}></textarea></label>`;
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const when = (iso) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }) : '—');
const TRUST = ['read_only', 'execute', 'autonomous', 'admin'];
// `selected` on the options, not `value` on the select: a poll's re-render must not undo a choice not yet saved
const TrustSelect = ({ value }) => html`<select name="trust">${TRUST.map((v) => html`<option value=${v} selected=${v === value}>${v}</option>`)}</select>`;
const Badge = ({ v }) => html`<span class=${`badge ${v}`}>${v}</span>`;

/** Loads `path` now and whenever `reload` is called; `every` (ms) polls it. */
function useApi(path, every) {
  const [state, setState] = useState({ data: undefined, error: '' });
  const reload = useCallback(() => {
    api('GET', path)
      // an unchanged answer keeps the state as it is: no re-render under a user's typing
      .then((data) => setState((s) => (JSON.stringify(s.data) === JSON.stringify(data) && !s.error ? s : { data, error: '' })))
      .catch((e) => setState((s) => ({ ...s, error: e.message })));
  }, [path]);
  useEffect(() => {
    reload();
    if (!every) return undefined;
    const t = setInterval(reload, every);
    return () => clearInterval(t);
  }, [reload, every]);
  return [state.data, state.error, reload];
}

/** Runs an action, shows its error, reloads after it. */
function useAction(after) {
  const [error, setError] = useState('');
  const run = async (fn) => {
    setError('');
    try {
      const out = await fn();
      after?.();
      return out;
    } catch (e) {
      setError(e.message);
      return undefined;
    }
  };
  return [error, run];
}

function formValues(e) {
  e.preventDefault();
  return Object.fromEntries(new FormData(e.target).entries());
}

const ShownOnce = ({ label, value, onDone }) => html`
  <div class="secret" role="status">
    <span>${label} (shown once):</span>
    <code data-testid="shown-once">${value}</code>
    <button type="button" onClick=${() => navigator.clipboard?.writeText(value)}>Copy</button>
    <button type="button" onClick=${onDone}>Done</button>
  </div>
`;

function SignIn({ onIn }) {
  const [error, setError] = useState('');
  // the key field takes the focus (an autofocus attribute does nothing on a field rendered after load)
  const field = useRef(null);
  useEffect(() => field.current?.focus(), []);
  const submit = async (e) => {
    const v = formValues(e);
    try {
      const s = await api('POST', '/session', { key: v.key });
      Object.assign(session, s);
      onIn();
    } catch (err) {
      setError(err.message);
    }
  };
  return html`<div class="signin card">
    <h2>a2a-gateway</h2>
    <p class="muted">Sign in with an admin key of your workspace.</p>
    <form onSubmit=${submit}>
      <label>Admin API key<input name="key" type="password" autocomplete="off" required ref=${field} /></label>
      <button class="primary" type="submit">Sign in</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </form>
  </div>`;
}

function KeysPage() {
  const [data, loadError, reload] = useApi('/keys');
  const [shown, setShown] = useState(undefined);
  const [error, run] = useAction(reload);
  // a new form after each create: its defaults come back (form.reset() would not restore Preact's selected/checked)
  const [formKey, setFormKey] = useState(0);
  const create = (e) => {
    const v = formValues(e);
    const body = { trust: v.trust, scopes: list(v.scopes), agents: list(v.agents) };
    if (v.name) body.name = v.name;
    if (v.expires) body.expires_at = new Date(`${v.expires}T23:59:59Z`).toISOString();
    if (v.perMinute || v.perHour) body.limits = { perMinute: Number(v.perMinute || 60), perHour: Number(v.perHour || 1000) };
    run(async () => {
      const k = await api('POST', '/keys', body);
      setShown({ label: `Key ${k.id}`, value: k.key });
      setFormKey((n) => n + 1);
    });
  };
  const revoke = (k) => confirm(`Revoke key ${k.name || k.id}? It is refused from the next request on.`) && run(() => api('POST', `/keys/${k.id}/revoke`));
  const rotate = (k) =>
    run(async () => {
      const n = await api('POST', `/keys/${k.id}/rotate`);
      setShown({ label: `New key ${n.id} (replaces ${k.id}; revoke the old one once switched)`, value: n.key });
    });
  return html`<h2>API keys</h2>
    <section class="card">
      <h3>Create a key</h3>
      <form class="grid" key=${formKey} onSubmit=${create} aria-label="Create a key">
        <label>Name<input name="name" /></label>
        <label>Trust level<select name="trust">
          <option value="read_only">read_only</option><option value="execute" selected>execute</option><option value="autonomous">autonomous</option><option value="admin">admin</option>
        </select></label>
        <label>Scopes (comma-separated, empty: all of the level)<input name="scopes" /></label>
        <label>Agents (comma-separated, empty: all)<input name="agents" /></label>
        <label>Expires on<input name="expires" type="date" /></label>
        <label>Per minute<input name="perMinute" type="number" min="1" placeholder="60" /></label>
        <label>Per hour<input name="perHour" type="number" min="1" placeholder="1000" /></label>
        <div><button class="primary" type="submit">Create key</button></div>
      </form>
      ${shown && html`<${ShownOnce} ...${shown} onDone=${() => setShown(undefined)} />`}
      ${(error || loadError) && html`<p class="error" role="alert">${error || loadError}</p>`}
    </section>
    <section class="card">
      <table aria-label="API keys">
        <thead><tr><th>Name</th><th>Id</th><th>Trust</th><th>Scopes</th><th>Agents</th><th>Limits</th><th>Expires</th><th>Created</th><th>Last used</th><th>Status</th><th></th></tr></thead>
        <tbody>
          ${(data?.keys ?? []).map(
            (k) => html`<tr data-key=${k.id}>
              <td>${k.name || '—'}</td><td><code>${k.id}</code></td><td>${k.trust}</td>
              <td>${k.scopes.join(', ') || 'all of level'}</td><td>${k.agents.join(', ') || 'all'}</td>
              <td>${k.limits ? `${k.limits.perMinute}/min, ${k.limits.perHour}/h` : 'default'}</td>
              <td>${when(k.expires_at)}</td><td>${when(k.created_at)}</td><td>${when(k.last_used_at)}</td>
              <td><${Badge} v=${k.revoked ? 'revoked' : 'ok'} /></td>
              <td class="actions">${!k.revoked && html`<button onClick=${() => rotate(k)}>Rotate</button><button class="danger" onClick=${() => revoke(k)}>Revoke</button>`}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
}

const CREDENTIAL_FIELDS = {
  none: [],
  apikey: [
    ['header', 'Header (X-API-Key)'],
    ['value', 'API key', 'password'],
  ],
  bearer: [['token', 'Bearer token', 'password']],
  oauth: [
    ['tokenUrl', 'Token URL'],
    ['clientId', 'Client id'],
    ['clientSecret', 'Client secret', 'password'],
    ['scope', 'Scope'],
  ],
  mtls: [
    ['cert', 'Client certificate (PEM)', 'textarea'],
    ['key', 'Private key (PEM)', 'textarea'],
    ['ca', 'CA (PEM, optional)', 'textarea'],
  ],
};

function credentialsOf(kind, v) {
  const c = { kind };
  for (const [f] of CREDENTIAL_FIELDS[kind]) if (v[f]) c[f] = v[f];
  return c;
}

const CredentialInputs = ({ kind }) =>
  CREDENTIAL_FIELDS[kind].map(
    ([f, label, type]) =>
      html`<label>${label}${type === 'textarea' ? html`<textarea name=${f}></textarea>` : html`<input name=${f} type=${type || 'text'} autocomplete="off" />`}</label>`,
  );

function ConnectionRow({ c, run }) {
  const [editing, setEditing] = useState(false);
  const [test, setTest] = useState(undefined);
  const [kind, setKind] = useState(c.auth);
  const save = (e) => {
    const v = formValues(e);
    const body = { settings: { url: v.url, trust: v.trust, agents: list(v.agents), allowedOrigins: listOfLines(v.allowed_origins) } };
    const cred = credentialsOf(kind, v);
    if (kind !== c.auth || Object.keys(cred).length > 1) body.credentials = cred;
    run(async () => {
      await api('PATCH', `/connections/${encodeURIComponent(c.name)}`, body);
      setEditing(false);
    });
  };
  const remove = () => confirm(`Remove connection ${c.name}?`) && run(() => api('DELETE', `/connections/${encodeURIComponent(c.name)}`));
  const doTest = () => run(async () => setTest(await api('POST', `/connections/${encodeURIComponent(c.name)}/test`)));
  return html`<tr data-connection=${c.name}>
      <td><strong>${c.name}</strong><div class="muted">${c.url}</div>${c.allowed_origins?.length > 0 && html`<div class="muted" data-testid="allowed-origins">also ${c.allowed_origins.join(', ')}</div>`}</td>
      <td>${c.auth}</td><td>${c.trust}</td><td>${c.agents.join(', ') || 'all'}</td>
      <td><${Badge} v=${c.status?.state ?? 'unknown'} />${c.status?.last_error && html`<div class="muted">${c.status.last_error}</div>`}</td>
      <td class="actions"><button onClick=${doTest}>Test</button><button onClick=${() => setEditing(!editing)}>Edit</button><button class="danger" onClick=${remove}>Remove</button></td>
    </tr>
    ${test && html`<tr><td colspan="6">${test.ok ? html`<span class="badge ok">card read</span> ${test.card?.name} · dialect ${test.dialect}` : html`<span class="error">${test.error}</span>`}</td></tr>`}
    ${
      editing &&
      html`<tr><td colspan="6">
        <form class="grid" onSubmit=${save} aria-label=${`Edit ${c.name}`}>
          <label>URL<input name="url" value=${c.url} required /></label>
          <label>Trust<${TrustSelect} value=${c.trust} /></label>
          <label>Agents<input name="agents" value=${c.agents.join(', ')} /></label>
          <${OriginsInput} value=${(c.allowed_origins ?? []).join('\n')} />
          <label>Auth<select value=${kind} onChange=${(e) => setKind(e.target.value)}>${Object.keys(CREDENTIAL_FIELDS).map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
          <${CredentialInputs} kind=${kind} />
          <div><button class="primary" type="submit">Save</button> <span class="muted">secrets are write-only: empty keeps them</span></div>
        </form>
      </td></tr>`
    }`;
}

function RelayAgents({ r, run }) {
  const save = (a) => (e) => {
    const v = formValues(e);
    run(() => api('PATCH', `/relays/${encodeURIComponent(r.name)}/agents/${encodeURIComponent(a.name)}`, { trust: v.trust, keys: list(v.keys) }));
  };
  if (r.agents.length === 0) return html`<p class="muted">No agent announced yet: they appear when the relay connects.</p>`;
  return html`<table aria-label=${`Agents of ${r.name}`}>
    <thead><tr><th>Agent</th><th>State</th><th>Trust and permissions</th></tr></thead>
    <tbody>${r.agents.map(
      (a) => html`<tr data-relay-agent=${a.name}>
        <td><strong>${a.name}</strong><div class="muted">${a.description ?? ''}</div></td>
        <td><${Badge} v=${a.online ? (a.health && !a.health.up ? 'down' : 'up') : 'disconnected'} /></td>
        <td><form class="row" onSubmit=${save(a)} aria-label=${`Trust of ${a.name}`}>
          <label>Trust<${TrustSelect} value=${a.trust} /></label>
          <label>Keys (ids, empty: every key)<input name="keys" value=${a.keys.join(', ')} /></label>
          <button type="submit">Save</button>
        </form></td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function ConnectionsPage() {
  const [data, loadError, reload] = useApi('/connections', 3000);
  const [relays, relayError, reloadRelays] = useApi('/relays', 3000);
  const [error, run] = useAction(() => {
    reload();
    reloadRelays();
  });
  const [kind, setKind] = useState('none');
  const [formKey, setFormKey] = useState(0);
  const add = (e) => {
    const v = formValues(e);
    const body = { name: v.name, url: v.url, trust: v.trust, agents: list(v.agents), credentials: credentialsOf(kind, v) };
    const types = ['text', 'data', 'file'].filter((t) => v[`type_${t}`]);
    if (types.length) body.allowedDataTypes = types;
    if (v.dialect !== 'auto') body.dialect = v.dialect;
    const origins = listOfLines(v.allowed_origins);
    if (origins.length) body.allowedOrigins = origins;
    run(async () => {
      await api('POST', '/connections', body);
      setKind('none');
      setFormKey((n) => n + 1);
    });
  };
  const addRelay = (e) => {
    const v = formValues(e);
    run(async () => {
      await api('POST', '/relays', { name: v.name, key: v.key });
      setFormKey((n) => n + 1);
    });
  };
  const removeRelay = (r) => confirm(`Remove relay ${r.name}?`) && run(() => api('DELETE', `/relays/${encodeURIComponent(r.name)}`));
  return html`<h2>Connections</h2>
    ${(error || loadError || relayError) && html`<p class="error" role="alert">${error || loadError || relayError}</p>`}
    <section class="card">
      <h3>Outbound connections</h3>
      <table aria-label="Outbound connections">
        <thead><tr><th>Name</th><th>Auth</th><th>Trust</th><th>Agents</th><th>State</th><th></th></tr></thead>
        <tbody>${(data?.connections ?? []).map((c) => html`<${ConnectionRow} key=${c.name} c=${c} run=${run} />`)}</tbody>
      </table>
      <h3 style="margin-top:16px">Add a connection</h3>
      <form class="grid" key=${`c${formKey}`} onSubmit=${add} aria-label="Add a connection">
        <label>Name<input name="name" required /></label>
        <label>Agent URL<input name="url" type="url" required placeholder="https://agent.example.com/a2a" /></label>
        <label>Trust<select name="trust"><option value="read_only">read_only</option><option value="execute" selected>execute</option><option value="autonomous">autonomous</option><option value="admin">admin</option></select></label>
        <label>Agents that may use it<input name="agents" placeholder="all" /></label>
        <label>Dialect<select name="dialect"><option value="auto">auto</option><option value="A">A</option><option value="B">B</option></select></label>
        <${OriginsInput} />
        <div class="row">
          <label class="check"><input type="checkbox" name="type_text" checked />text</label>
          <label class="check"><input type="checkbox" name="type_data" checked />data</label>
          <label class="check"><input type="checkbox" name="type_file" checked />file</label>
        </div>
        <label>Auth<select name="auth" value=${kind} onChange=${(e) => setKind(e.target.value)}>${Object.keys(CREDENTIAL_FIELDS).map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
        <${CredentialInputs} kind=${kind} />
        <div><button class="primary" type="submit">Add connection</button></div>
      </form>
    </section>
    <section class="card">
      <h3>Relay connections</h3>
      ${(relays?.relays ?? []).map(
        (r) => html`<div class="card" data-relay=${r.name}>
          <div class="row"><strong>${r.name}</strong><${Badge} v=${r.tunnel} /><span class="muted">key <code>${r.key_id}</code></span>
            <span style="flex:1"></span><button class="danger" onClick=${() => removeRelay(r)}>Remove</button></div>
          <${RelayAgents} r=${r} run=${run} />
        </div>`,
      )}
      <form class="grid" key=${`r${formKey}`} onSubmit=${addRelay} aria-label="Add a relay">
        <label>Relay name<input name="name" required /></label>
        <label>Its key's id (a key of this workspace used for nothing else)<input name="key" required placeholder="key_…" /></label>
        <div><button class="primary" type="submit">Add relay</button></div>
      </form>
      <p class="muted">Workspace id for the relay's config: <code>${session.workspace}</code></p>
    </section>`;
}

function AgentsPage() {
  const [data, error] = useApi('/agents', 5000);
  return html`<h2>Agents</h2>
    ${error && html`<p class="error">${error}</p>`}
    <section class="card">
      <table aria-label="Agents">
        <thead><tr><th>Agent</th><th>Kind</th><th>Health</th><th>Card</th></tr></thead>
        <tbody>${(data?.agents ?? []).map(
          (a) => html`<tr data-agent=${a.id}>
            <td><strong>${a.id}</strong><div class="muted">${a.name}${a.shared ? ' · every workspace' : ''}</div></td>
            <td>${a.kind}</td>
            <td><${Badge} v=${!a.online ? 'disconnected' : a.health && !a.health.up ? 'down' : 'up'} /></td>
            <td><details><summary>card</summary><pre>${JSON.stringify(a.card, null, 2)}</pre></details></td>
          </tr>`,
        )}</tbody>
      </table>
    </section>`;
}

const STATES = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'];

function TasksPage() {
  const [filter, setFilter] = useState({ state: '', agent: '' });
  const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v)).toString();
  const [data, error] = useApi(`/tasks${q ? `?${q}` : ''}`, 3000);
  const [agents] = useApi('/agents');
  return html`<h2>Tasks</h2>
    <section class="card">
      <div class="row">
        <label>State<select aria-label="Filter by state" onChange=${(e) => setFilter({ ...filter, state: e.target.value })}>
          <option value="">any</option>${STATES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
        <label>Agent<select aria-label="Filter by agent" onChange=${(e) => setFilter({ ...filter, agent: e.target.value })}>
          <option value="">any</option>${(agents?.agents ?? []).map((a) => html`<option value=${a.id}>${a.id}</option>`)}</select></label>
      </div>
    </section>
    ${error && html`<p class="error">${error}</p>`}
    <section class="card">
      <table aria-label="Tasks">
        <thead><tr><th>Task</th><th>Agent</th><th>State</th><th>Artifacts</th><th>Updated</th></tr></thead>
        <tbody>${(data?.tasks ?? []).map(
          (t) => html`<tr data-task=${t.id}>
            <td><a href=${`#/tasks/${encodeURIComponent(t.id)}`}><code>${t.id}</code></a></td><td class="id">${t.agent}</td>
            <td><${Badge} v=${t.state} /></td><td>${t.artifacts}</td><td>${when(t.updated_at)}</td>
          </tr>`,
        )}</tbody>
      </table>
      ${data && data.tasks.length === 0 && html`<p class="muted">No task matches.</p>`}
    </section>`;
}

function TaskPage({ id }) {
  const [data, error, reload] = useApi(`/tasks/${encodeURIComponent(id)}`);
  const [live, setLive] = useState(undefined);
  const [liveStopped, setLiveStopped] = useState('');
  const [actionError, run] = useAction(reload);
  useEffect(() => {
    setLiveStopped('');
    const es = new EventSource(`/api/admin/tasks/${encodeURIComponent(id)}/events`);
    es.onmessage = (ev) => {
      const t = JSON.parse(ev.data);
      // the view's closing error event (the page fell behind): not a summary; say so, keep the last one shown
      if (t.error) {
        es.close();
        setLiveStopped(t.error === 'backpressure' ? "this page fell too far behind the task's updates" : t.message || t.error);
        return;
      }
      setLive(t);
      if (['completed', 'canceled', 'failed'].includes(t.state)) {
        es.close();
        reload();
      }
    };
    es.onerror = () => es.close();
    return () => es.close();
  }, [id, reload]);
  const state = live?.state ?? data?.state;
  const cancel = () => confirm(`Cancel task ${id}?`) && run(() => api('POST', `/tasks/${encodeURIComponent(id)}/cancel`));
  return html`<h2>Task <code>${id}</code></h2>
    ${(error || actionError) && html`<p class="error" role="alert">${error || actionError}</p>`}
    ${
      liveStopped &&
      html`<p class="error" role="alert" data-testid="live-stopped">Live view stopped: ${liveStopped}. What is shown may be out of date.
        <button style="margin-left:8px" onClick=${() => location.reload()}>Reload</button></p>`
    }
    <section class="card">
      <div class="row">
        <span>State: <span data-testid="task-state"><${Badge} v=${state ?? '…'} /></span></span>
        <span class="muted">agent ${data?.agent} · ${plural(data?.messages ?? 0, 'message')} · ${plural(live?.artifacts ?? data?.artifacts ?? 0, 'artifact')} · updated ${when(live?.updated_at ?? data?.updated_at)}${data?.request_id ? html` · request <code>${data.request_id}</code>` : ''}</span>
        <span style="flex:1"></span>
        ${state && !['completed', 'canceled', 'failed'].includes(state) && html`<button class="danger" onClick=${cancel}>Cancel task</button>`}
        <a href="#/tasks">All tasks</a>
      </div>
    </section>
    <section class="card">
      <h3>What the caller sees (sanitized)</h3>
      <pre data-testid="task-view">${data ? JSON.stringify(data.view, null, 2) : '…'}</pre>
    </section>`;
}

function WebhooksPage() {
  const [data, loadError, reload] = useApi('/webhooks', 5000);
  const [shown, setShown] = useState(undefined);
  const [error, run] = useAction(reload);
  const rotate = () =>
    confirm('Rotate the webhook signing secret? Receivers must switch to the new one.') &&
    run(async () => setShown((await api('POST', '/webhooks/secret/rotate')).secret));
  return html`<h2>Webhooks</h2>
    ${(error || loadError) && html`<p class="error" role="alert">${error || loadError}</p>`}
    <section class="card">
      <h3>Signing secret</h3>
      <div class="row"><span>${data?.has_secret ? 'A secret is set.' : 'No secret yet (one is made at the first delivery).'}</span>
        <button class="primary" onClick=${rotate}>Rotate signing secret</button></div>
      ${shown && html`<${ShownOnce} label="Webhook signing secret" value=${shown} onDone=${() => setShown(undefined)} />`}
    </section>
    <section class="card">
      <h3>Recent deliveries</h3>
      <table aria-label="Recent deliveries">
        <thead><tr><th>Delivery</th><th>Task</th><th>Attempt</th><th>Outcome</th><th>HTTP</th><th>Error</th><th>At</th></tr></thead>
        <tbody>${(data?.deliveries ?? []).map(
          (d) => html`<tr><td><code>${d.id}</code></td><td><code>${d.task_id}</code></td><td>${d.attempts}</td>
            <td><${Badge} v=${d.result} /></td><td>${d.status ?? '—'}</td><td>${d.error ?? ''}</td><td>${when(d.at)}</td></tr>`,
        )}</tbody>
      </table>
      ${data && data.deliveries.length === 0 && html`<p class="muted">No delivery since the gateway started.</p>`}
      <h3 style="margin-top:16px">Waiting</h3>
      ${
        data && data.waiting.length === 0
          ? html`<p class="muted">Nothing waits.</p>`
          : html`<table aria-label="Waiting deliveries">
        <thead><tr><th>Delivery</th><th>Task</th><th>Attempts</th><th>Next try</th><th>Last error</th></tr></thead>
        <tbody>${(data?.waiting ?? []).map((w) => html`<tr><td><code>${w.id}</code></td><td><code>${w.task_id}</code></td><td>${w.attempts}</td><td>${when(w.due_at)}</td><td>${w.last_error ?? ''}</td></tr>`)}</tbody>
      </table>`
      }
      ${data && data.waiting_total > data.waiting.length && html`<p class="muted">The ${data.waiting.length} due soonest of ${data.waiting_total} waiting.</p>`}
    </section>`;
}

const PAGES = [
  [
    'Work',
    [
      ['#/agents', 'Agents'],
      ['#/tasks', 'Tasks'],
      ['#/webhooks', 'Webhooks'],
    ],
  ],
  [
    'Settings',
    [
      ['#/keys', 'API keys'],
      ['#/connections', 'Connections'],
    ],
  ],
];

function page(hash) {
  const m = /^#\/tasks\/(.+)$/.exec(hash);
  if (m) return html`<${TaskPage} id=${decodeURIComponent(m[1])} />`;
  const pages = { '#/keys': KeysPage, '#/connections': ConnectionsPage, '#/agents': AgentsPage, '#/tasks': TasksPage, '#/webhooks': WebhooksPage };
  const P = pages[hash] ?? AgentsPage;
  return html`<${P} />`;
}

function App() {
  const [signedIn, setSignedIn] = useState(undefined);
  const [hash, setHash] = useState(location.hash || '#/agents');
  useEffect(() => {
    api('GET', '/session')
      .then((s) => {
        Object.assign(session, s);
        setSignedIn(true);
      })
      .catch(() => setSignedIn(false));
    const on = () => setHash(location.hash || '#/agents');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  if (signedIn === undefined) return html`<p class="loading">Loading…</p>`;
  if (!signedIn) return html`<${SignIn} onIn=${() => setSignedIn(true)} />`;
  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    setSignedIn(false);
  };
  const section = hash.startsWith('#/tasks/') ? '#/tasks' : hash;
  return html`<div class="layout">
    <nav class="side" aria-label="Dashboard">
      <h1>a2a-gateway</h1>
      <div class="ws">workspace <strong>${session.workspace}</strong></div>
      ${PAGES.map(
        ([group, links]) => html`<div class="group">${group}</div>
          ${links.map(([href, label]) => html`<a href=${href} class=${section === href ? 'active' : ''} aria-current=${section === href ? 'page' : undefined}>${label}</a>`)}`,
      )}
      <button class="signout" onClick=${signOut}>Sign out</button>
    </nav>
    <main>${page(hash)}</main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
