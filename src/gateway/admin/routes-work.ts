// Admin routes of the workspace's work: its agents (kind, health, card) and its tasks (recent with filters, detail with
// the sanitized view a caller sees, live events over SSE, cancel).
import { codecs } from '../../protocol/codec.js';
import { TERMINAL_STATES, TaskState, type Task } from '../../protocol/model.js';
import { taskView } from '../../protocol/views.js';
import { toSanitizedJson } from '../../runtime/sanitizer.js';
import { taskKey } from '../../runtime/store/types.js';
import { RpcError } from '../../protocol/errors.js';
import { onStreamEnd } from '../call-meter.js';
import { agentCard } from '../card.js';
import { recentTasks } from './recent-tasks.js';
import { StreamSlots } from '../stream-slots.js';
import { AdminRateLimited, SECURITY_HEADERS, badInput, notFound } from './http.js';
import type { LapseWatch } from '../lapse-watch.js';
import type { SessionEnd } from './sessions.js';
import { Reply, type AdminDeps, type AdminRoute } from './types.js';

const ALL_STATES = TaskState.options;

/** A task in a list: what tells it apart, never its messages. */
const summary = (t: Task) => ({
  id: t.id,
  agent: t.agentId,
  state: t.status.state,
  context_id: t.contextId,
  dialect: t.dialect,
  artifacts: t.artifacts.length,
  messages: t.history.length,
  created_at: new Date(t.createdAt).toISOString(),
  updated_at: new Date(t.updatedAt).toISOString(),
});

/** The setting that bounds each admin key's open live views (apart from its A2A streams' bound). */
export const ADMIN_STREAMS_SETTING = 'dashboard.maxStreamsPerKey';

/** The live view's closing event for a reader that stopped keeping up (the admin API's error shape). */
const FELL_BEHIND = JSON.stringify({
  error: 'backpressure',
  message: 'Stream closed: the reader fell too far behind; open the view again',
  setting: 'streaming.maxBufferedBytes',
});

/** The task as a caller with every result scope sees it: its own dialect, sanitized at the exit like any reply. */
const callerView = (t: Task): unknown => JSON.parse(toSanitizedJson(codecs[t.dialect].task(taskView(t, { results: true, files: true }))));

export function workRoutes(d: AdminDeps, o: { sessions: Pick<LapseWatch<SessionEnd>, 'watch'> }): AdminRoute[] {
  // one count per admin API (per process), as the A2A endpoint keeps its own
  const slots = new StreamSlots({ limit: d.maxStreamsPerKey, setting: ADMIN_STREAMS_SETTING });
  /** Takes one of the key's live-view slots, or refuses as the admin API refuses a spent budget (429 rate_limited). */
  const takeSlot = (keyId: string): (() => void) => {
    try {
      return slots.take(keyId);
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      const { limit, setting } = e.data ?? {};
      throw new AdminRateLimited(e.message, {}, { limit, setting });
    }
  };
  const own = async (workspace: string, id: string) => {
    const t = await d.supervisor.get(workspace, id);
    if (!t) throw notFound(`No task ${id} in workspace ${workspace}`);
    return t;
  };

  return [
    {
      method: 'GET',
      path: /^\/agents$/,
      handler: async (c) => ({
        agents: d.agents.specs
          .filter((a) => a.workspace === c.workspace || a.workspace === '*')
          .map((a) => {
            const health = d.agents.health(c.workspace, a.id);
            return {
              id: a.id,
              name: a.name,
              kind: a.kind,
              description: a.description ?? null,
              shared: a.workspace === '*',
              online: d.agents.online(c.workspace, a.id),
              health: health ?? null,
              card: agentCard({ settings: d.card, agent: a, baseUrl: d.publicUrl ?? '' }),
            };
          }),
      }),
    },
    {
      method: 'GET',
      path: /^\/tasks$/,
      handler: async (c) => {
        const asked = c.query.get('state') || undefined;
        const agent = c.query.get('agent') || undefined;
        const limit = Math.min(Math.max(Number(c.query.get('limit') ?? 50) || 50, 1), 500);
        const read = asked === undefined ? undefined : TaskState.safeParse(asked);
        if (read !== undefined && !read.success) throw badInput(`state: one of ${ALL_STATES.join(', ')}`, 'state');
        const state = read?.data;
        // the workspace's own tasks, newest status first (the listing index's order): a cost of the page, not of the workspace
        const tasks = await recentTasks(d.store.tasks, { workspace: c.workspace, state, agent, limit });
        return { tasks: tasks.map(summary) };
      },
    },
    {
      method: 'GET',
      path: /^\/tasks\/([^/]+)$/,
      handler: async (c) => {
        const t = await own(c.workspace, c.params[0]!);
        const requestId = t.metadata.request_id;
        return { ...summary(t), request_id: typeof requestId === 'string' ? requestId : null, view: callerView(t) };
      },
    },
    {
      method: 'POST',
      path: /^\/tasks\/([^/]+)\/cancel$/,
      handler: async (c) => {
        const t = await own(c.workspace, c.params[0]!);
        if (TERMINAL_STATES.has(t.status.state)) throw badInput(`Task ${t.id} is ${t.status.state} and cannot be canceled`, 'state');
        const canceled = await d.supervisor.cancel(t);
        d.log('task canceled from the dashboard', { workspace: c.workspace, task: t.id });
        return summary(canceled);
      },
    },
    {
      // live: the task's summary now, then again after each of its events, until it settles or the key behind the
      // view lapses (a revoked key's session is over: its open view ends too, within one key check)
      method: 'GET',
      path: /^\/tasks\/([^/]+)\/events$/,
      handler: async (c) => {
        const first = await own(c.workspace, c.params[0]!);
        const key = taskKey(c.workspace, first.id);
        // taken last, once nothing can refuse the call any more; freed once however the view ends (its own end, the
        // client going away, or the client gone before it opened)
        const release = takeSlot(c.keyId);
        return new Reply({
          kind: 'stream',
          headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', ...SECURITY_HEADERS },
          abandon: release,
          start: onStreamEnd((sink) => {
            let done = false;
            let seq = 0;
            const stop = () => {
              done = true;
              sub.unsubscribe();
              unwatch();
              unwatchSession?.();
            };
            const push = (t: Task) => {
              if (done) return;
              seq++;
              const data = JSON.stringify(summary(t));
              if (TERMINAL_STATES.has(t.status.state)) {
                stop();
                sink.end({ id: String(seq), data });
              } else if (!sink.event({ id: String(seq), data })) {
                // the reader fell streaming.maxBufferedBytes behind: as an A2A stream does, the view ends with an
                // error event after everything queued (each summary is whole, so opening the view again loses nothing)
                stop();
                sink.end({ data: FELL_BEHIND });
              }
            };
            const lapsed = () => {
              if (done) return;
              stop();
              sink.end();
            };
            const unwatch = d.keyWatch.watch(c.keyId, lapsed);
            // opened with a session's cookie: signing out (here or on another instance) or its expiry ends it too
            const unwatchSession = c.sessionId === undefined ? undefined : o.sessions.watch(c.sessionId, lapsed);
            // each event says something changed; the summary is read again (one read per event, a dashboard's pace)
            const sub = d.bus.subscribe(key, (events) => {
              for (let i = 0; i < events.length; i++) void d.supervisor.get(c.workspace, first.id).then((t) => t && push(t));
            });
            // read after the subscription is live: a change between the first read and now is not missed
            void sub.ready.then(() => d.supervisor.get(c.workspace, first.id)).then((t) => t && push(t));
            return stop;
          }, release),
        });
      },
    },
  ];
}
