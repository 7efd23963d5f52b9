// The admin UI's views: the tunnel's connection, the local agents, the task log with its filters, a turn's detail with
// replay. Each takes what the shell loaded and renders it; only the detail and replay call the API themselves.
import { html, useEffect, useState } from './preact-htm.js';
import { ago, clockTime, countdown, duration, tone } from './format.js';

/** the caller's dialect as the gateway names it: rev A, rev B, or A2A 1.0 */
const dialectLabel = (d) => (d === 'V1' ? 'A2A 1.0' : `rev ${d}`);

const Pill = ({ state, label }) => html`<span class=${`pill ${tone(state)}`}><span class="dot" aria-hidden="true"></span>${label ?? state}</span>`;

/** an error's plain words, with the raw text one click away */
const ErrorText = ({ words, raw }) =>
  words === raw
    ? html`<span class="error-text">${raw}</span>`
    : html`<span class="error-text">${words}</span><details class="raw"><summary>Details</summary><code>${raw}</code></details>`;

export function ConnectionView({ status, clock }) {
  // a tick each quarter second re-renders the countdown (this view only); each render reads the clock itself
  const [, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 250);
    return () => clearInterval(t);
  }, []);
  if (!status) return html`<p class="muted">Waiting for the relay…</p>`;
  const now = clock();
  const backingOff = status.connection === 'backing off' && status.nextAttemptAt !== undefined;
  return html`<section aria-labelledby="conn-h">
    <h1 id="conn-h">Connection</h1>
    <div class="card hero">
      <div class="hero-state" data-testid="connection-state"><${Pill} state=${status.connection} /></div>
      <p class="hero-line">
        ${status.connection} since ${clockTime(status.since)} <span class="muted">(${ago(now - status.since)})</span>
        ${backingOff ? html`<br /><strong data-testid="next-attempt">Next attempt ${countdown(status.nextAttemptAt - now)}</strong> <span class="muted">at ${clockTime(status.nextAttemptAt)}</span>` : null}
        ${backingOff && status.retryAfterMs !== undefined ? html`<br /><span data-testid="retry-after">The gateway asked the relay to wait ${duration(status.retryAfterMs)} (Retry-After)</span>` : null}
      </p>
    </div>
    <dl class="card facts">
      <dt>Gateway</dt><dd><code>${status.gatewayUrl}</code></dd>
      <dt>Workspace</dt><dd><code>${status.workspace}</code></dd>
      <dt>Failed attempts in a row</dt><dd data-testid="attempts">${status.attempts}</dd>
      <dt>Reconnects since start</dt><dd>${status.reconnects}</dd>
      <dt>Last error</dt><dd>${status.lastError ? html`<${ErrorText} words=${status.lastErrorWords} raw=${status.lastError} />` : html`<span class="muted">none</span>`}</dd>
    </dl>
  </section>`;
}

/**
 * An agent's card, read when its details are opened (the live stream carries its summary only: 100 agents of 100
 * skills are megabytes of cards), and again when the card changed (cardRev) while open.
 */
function CardDetails({ agent, getJson }) {
  const [open, setOpen] = useState(false);
  const [card, setCard] = useState(undefined);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!open) return undefined;
    let live = true;
    setFailed(false);
    getJson(`/api/agents/${encodeURIComponent(agent.name)}`)
      .then((r) => live && r && setCard({ rev: agent.cardRev, skills: r.card?.skills ?? [] }))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [open, agent.name, agent.cardRev]);
  const n = agent.skillCount;
  return html`<details onToggle=${(e) => setOpen(e.currentTarget.open)}>
    <summary>Card: ${n} skill${n === 1 ? '' : 's'}</summary>
    ${
      failed
        ? html`<p class="error-text small">The card could not be read; close and open again to retry.</p>`
        : card
          ? html`<ul class="skills">${card.skills.map((s) => html`<li><strong>${s.name}</strong> <code>${s.id}</code>${s.description ? html` — ${s.description}` : null}</li>`)}</ul>`
          : html`<p class="muted small">Loading the card…</p>`
    }
  </details>`;
}

export function AgentsView({ agents, getJson }) {
  return html`<section aria-labelledby="agents-h">
    <h1 id="agents-h">Agents</h1>
    ${agents.length === 0 ? html`<p class="muted">No local agent yet (a LOCAL_AGENT_URL card is read at start-up).</p>` : null}
    <ul class="agents">
      ${agents.map(
        (a) => html`<li class="card agent" data-agent=${a.name} key=${a.name}>
          <div class="agent-head">
            <h2>${a.name}</h2>
            <span data-testid="agent-health"><${Pill} state=${a.health} /></span>
          </div>
          <p class="muted">${a.description === undefined ? '…' : a.description || 'No description.'}</p>
          <dl class="facts compact">
            <dt>Local URL</dt><dd><code>${a.url || '—'}</code></dd>
            <dt>Last check</dt><dd>${clockTime(a.lastCheck)}</dd>
            <dt>Latency</dt><dd>${a.latencyMs === undefined ? '—' : `${a.latencyMs} ms`}</dd>
            <dt>Turns served</dt><dd data-testid="served">${a.served}</dd>
            <dt>Turns failed</dt><dd data-testid="failed">${a.failed}</dd>
            ${a.health === 'down' && a.error ? html`<dt>Why down</dt><dd><${ErrorText} words=${a.errorWords} raw=${a.error} /></dd>` : null}
          </dl>
          ${a.skillCount ? html`<${CardDetails} agent=${a} getJson=${getJson} />` : html`<p class="muted small">Card: no skills listed${a.streaming ? ', streams' : ''}.</p>`}
        </li>`,
      )}
    </ul>
  </section>`;
}

const STATES = ['running', 'completed', 'input-required', 'failed', 'canceled'];

export function TasksView({ tasks, agents }) {
  const [agent, setAgent] = useState('');
  const [state, setState] = useState('');
  const names = [...new Set([...agents.map((a) => a.name), ...tasks.map((t) => t.agent)])].sort();
  const shown = tasks.filter((t) => (!agent || t.agent === agent) && (!state || t.state === state));
  return html`<section aria-labelledby="tasks-h">
    <h1 id="tasks-h">Task log</h1>
    <form class="filters" onSubmit=${(e) => e.preventDefault()}>
      <label>Agent <select id="filter-agent" value=${agent} onChange=${(e) => setAgent(e.currentTarget.value)}>
        <option value="">all</option>${names.map((n) => html`<option value=${n}>${n}</option>`)}
      </select></label>
      <label>State <select id="filter-state" value=${state} onChange=${(e) => setState(e.currentTarget.value)}>
        <option value="">all</option>${STATES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <span class="muted small" aria-live="polite">${shown.length} of ${tasks.length} turns (the last 1,000 are kept, newest first)</span>
    </form>
    <div class="card table-wrap">
      <table class="tasks">
        <thead><tr><th scope="col">Time</th><th scope="col">Agent</th><th scope="col">Task</th><th scope="col">Caller</th><th scope="col">State</th><th scope="col">Duration</th><th scope="col">Error</th></tr></thead>
        <tbody>
          ${shown.length === 0 ? html`<tr><td colspan="7" class="muted empty">No turn yet: tasks sent to this relay's agents through the gateway show here as they run.</td></tr>` : null}
          ${shown.map(
            (t) => html`<tr data-turn=${t.id} data-state=${t.state}>
              <td>${clockTime(t.at)}</td>
              <td>${t.agent}</td>
              <td><a href=${`#/tasks/${t.id}`} class="task-link">${t.taskId}</a>${t.replayOf ? html` <span class="tag">replay of ${t.replayOf}</span>` : null}</td>
              <td>${t.replayOf ? 'replay' : t.dialect ? dialectLabel(t.dialect) : '—'}</td>
              <td><${Pill} state=${t.state} /></td>
              <td class="num">${duration(t.durationMs)}</td>
              <td class="error-text clip" title=${t.error ?? ''}>${t.error ?? ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function TaskDetail({ id, tick, getJson }) {
  const [t, setT] = useState(undefined);
  const [missing, setMissing] = useState(false);
  const [replay, setReplay] = useState(undefined);
  useEffect(() => {
    let live = true;
    getJson(`/api/tasks/${encodeURIComponent(id)}`)
      .then((r) => live && r && setT(r))
      .catch(() => live && setMissing(true));
    return () => {
      live = false;
    };
  }, [id, tick]);
  // another turn: nothing of the last one is shown while it loads
  useEffect(() => {
    setReplay(undefined);
    setT(undefined);
    setMissing(false);
  }, [id]);
  const doReplay = async () => {
    setReplay({ busy: true });
    const r = await fetch(`/api/tasks/${encodeURIComponent(id)}/replay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const body = await r.json().catch(() => ({}));
    setReplay(r.ok ? { id: body.id } : { error: body.error?.message ?? `HTTP ${r.status}` });
  };
  if (missing)
    return html`<p><a href="#/tasks">← Task log</a></p><p class="error-text">No turn ${id} in the log (it may have been dropped: the last 1,000 are kept).</p>`;
  if (!t || t.id !== id) return html`<p class="muted">Loading ${id}…</p>`;
  return html`<section aria-labelledby="detail-h">
    <p><a href="#/tasks">← Task log</a></p>
    <div class="detail-head">
      <h1 id="detail-h">Turn ${t.id} <span class="muted">· task ${t.taskId}</span></h1>
      <button type="button" onClick=${doReplay} disabled=${replay?.busy} data-testid="replay">Replay to ${t.agent}</button>
    </div>
    ${replay?.id ? html`<p class="notice" role="status">Replayed as <a href=${`#/tasks/${replay.id}`}>${replay.id}</a>.</p>` : null}
    ${replay?.error ? html`<p class="error-text" role="alert">Replay refused: ${replay.error}</p>` : null}
    <dl class="card facts">
      <dt>State</dt><dd data-testid="detail-state"><${Pill} state=${t.state} /></dd>
      <dt>Agent</dt><dd>${t.agent}</dd>
      <dt>Started</dt><dd>${clockTime(t.at)}</dd>
      <dt>Duration</dt><dd>${duration(t.durationMs)}</dd>
      <dt>Caller</dt><dd>${t.replayOf ? html`replay of <a href=${`#/tasks/${t.replayOf}`}>${t.replayOf}</a>` : t.dialect ? dialectLabel(t.dialect) : '—'}</dd>
      ${t.error ? html`<dt>Error</dt><dd class="error-text">${t.error}</dd>` : null}
    </dl>
    <div class="panes">
      <section class="card pane" aria-labelledby="req-h"><h2 id="req-h">Request</h2><pre data-testid="request" tabindex="0">${t.request}</pre></section>
      <section class="card pane" aria-labelledby="ans-h"><h2 id="ans-h">Answer</h2><pre data-testid="answer" tabindex="0">${t.answer}</pre></section>
    </div>
  </section>`;
}
