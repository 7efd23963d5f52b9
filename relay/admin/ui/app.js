// The admin UI's shell: loads the views' data from the JSON API, keeps it live from the SSE stream (/api/events),
// routes by the location hash (#/connection, #/agents, #/tasks, #/tasks/ID). Preact with htm: no build step.
import { html, render, useEffect, useRef, useState } from './preact-htm.js';
import { tone } from './format.js';
import { AgentsView, ConnectionView, TaskDetail, TasksView } from './views.js';

const MAX_TASKS = 1000;

async function getJson(path) {
  const r = await fetch(path, { headers: { accept: 'application/json' } });
  if (r.status === 401) {
    location.href = '/login';
    return undefined;
  }
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

function useRoute() {
  const read = () => location.hash.replace(/^#\/?/, '') || 'connection';
  const [route, setRoute] = useState(read());
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** the server's clock minus ours, so countdowns agree with the relay's time */
let skew = 0;

function useLive() {
  const [status, setStatus] = useState(undefined);
  const [agents, setAgents] = useState([]);
  const [tasks, setTasks] = useState([]);
  const [stream, setStream] = useState('connecting');
  const [taskTick, setTaskTick] = useState({});
  useEffect(() => {
    let closed = false;
    const es = new EventSource('/api/events');
    const onStatus = (s) => {
      skew = s.now - Date.now();
      setStatus(s);
    };
    let opened = false;
    es.addEventListener('open', () => {
      setStream('open');
      // after a reconnect the log is read again: a stream cut off for falling behind missed the turns in between
      if (opened) loadTasks();
      opened = true;
    });
    es.addEventListener('error', () => {
      setStream('lost');
      // a session signed out elsewhere or expired ends the stream: the API's 401 then leads to the login form
      getJson('/api/session').catch(() => undefined);
    });
    es.addEventListener('status', (e) => onStatus(JSON.parse(e.data)));
    // every agent's summary (its card is read when shown); the descriptions follow as `agent` events
    // (a description already shown stays until its fresh one comes: a reconnect does not blank the list)
    es.addEventListener('agents', (e) => {
      const fresh = JSON.parse(e.data);
      setAgents((old) => {
        const shown = new Map(old.map((a) => [a.name, a.description]));
        return fresh.map((a) => ({ description: shown.get(a.name), ...a }));
      });
    });
    // one agent's changed fields (null: now unset); a name not listed yet comes whole
    es.addEventListener('agent', (e) => {
      const patch = JSON.parse(e.data);
      const merged = (a) => {
        const next = { ...a };
        for (const [k, v] of Object.entries(patch)) next[k] = v === null ? undefined : v;
        return next;
      };
      setAgents((list) => (list.some((a) => a.name === patch.name) ? list.map((a) => (a.name === patch.name ? merged(a) : a)) : [...list, merged({})]));
    });
    es.addEventListener('task', (e) => {
      const t = JSON.parse(e.data);
      setTasks((list) => {
        const i = list.findIndex((x) => x.id === t.id);
        if (i >= 0) return list.map((x) => (x.id === t.id ? t : x));
        return [t, ...list].slice(0, MAX_TASKS);
      });
      setTaskTick((old) => ({ ...old, [t.id]: (old[t.id] ?? 0) + 1 }));
    });
    // the list as it stands (the stream then brings each change); a turn the stream told is kept as told unless the
    // list has it further on (ended while the stream was away): a turn only goes from running to its end
    const loadTasks = () =>
      getJson('/api/tasks')
        .then((r) => {
          if (closed || !r) return;
          setTasks((live) => {
            const loaded = new Map(r.tasks.map((t) => [t.id, t]));
            const kept = live.map((t) => (t.state === 'running' && loaded.has(t.id) ? loaded.get(t.id) : t));
            const known = new Set(kept.map((t) => t.id));
            return [...kept, ...r.tasks.filter((t) => !known.has(t.id))]
              .sort((a, b) => b.at - a.at || Number(b.id.slice(1)) - Number(a.id.slice(1)))
              .slice(0, MAX_TASKS);
          });
        })
        .catch(() => undefined);
    loadTasks();
    return () => {
      closed = true;
      es.close();
    };
  }, []);
  return { status, agents, tasks, stream, taskTick };
}

const NAV = [
  ['connection', 'Connection'],
  ['agents', 'Agents'],
  ['tasks', 'Task log'],
];

/** Sign-out (shown when the UI asks for a password): a plain form, so the server ends the session and its streams. */
const SignOut = () => html`<form method="post" action="/logout" class="sign-out"><button type="submit" class="quiet">Sign out</button></form>`;

function Header({ status, route, stream, password }) {
  const state = status?.connection ?? 'starting';
  const section = route.split('/')[0];
  return html`<header class="top">
    <a class="brand" href="#/connection"><img src="/assets/icon.svg" alt="" width="24" height="24" /><span>a2a-relay</span></a>
    <nav aria-label="Views">
      ${NAV.map(([id, label]) => html`<a href=${`#/${id}`} aria-current=${section === id ? 'page' : undefined}>${label}</a>`)}
    </nav>
    <div class="top-status" aria-live="polite">
      ${stream === 'lost' ? html`<span class="pill bad" title="The admin stream is retrying">admin stream lost</span>` : null}
      <span class=${`pill ${tone(state)}`} data-testid="tunnel-pill"><span class="dot" aria-hidden="true"></span>${state}</span>
      ${password ? html`<${SignOut} />` : null}
    </div>
  </header>`;
}

function App() {
  const route = useRoute();
  const live = useLive();
  const [password, setPassword] = useState(false);
  useEffect(() => {
    getJson('/api/session')
      .then((s) => s && setPassword(s.password))
      .catch(() => undefined);
  }, []);
  // a route change moves the focus to the new view (not the first render: Tab then starts at the top, as on any page)
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else document.getElementById('main')?.focus({ preventScroll: true });
  }, [route.split('/')[0]]);
  let view;
  const [section, id] = route.split('/');
  if (section === 'agents') view = html`<${AgentsView} agents=${live.agents} getJson=${getJson} />`;
  else if (section === 'tasks' && id) view = html`<${TaskDetail} id=${id} tick=${live.taskTick[id] ?? 0} getJson=${getJson} />`;
  else if (section === 'tasks') view = html`<${TasksView} tasks=${live.tasks} agents=${live.agents} />`;
  else view = html`<${ConnectionView} status=${live.status} clock=${() => Date.now() + skew} />`;
  return html`<${Header} status=${live.status} route=${route} stream=${live.stream} password=${password} />
    <main id="main" tabindex="-1">${view}</main>`;
}

document.getElementById('app').textContent = '';
render(html`<${App} />`, document.getElementById('app'));
