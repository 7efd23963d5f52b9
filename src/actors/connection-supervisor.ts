// Supervises one actor per outbound connection and runs every outbound call through it: the checks, then the client.
import { createActor } from 'xstate';
import { refusedPart, trustAllows, type ConnectionRecord, type ConnectionStatus, type Credentials, type RemoteTask } from '../protocol/connections.js';
import type { Clock, Timers } from '../runtime/clock.js';
import { errorText, type Log } from '../runtime/log.js';
import { isRemoteFault, OutboundError, type A2AClient, type OutboundErrorCode, type RemoteEndpoint } from '../runtime/a2a-client/types.js';
import type { ConnectionStore } from '../runtime/store/types.js';
import type { ConnectionCall, ConnectionCalls } from '../runtime/agents/outbound-calls.js';
import { oneLine } from '../protocol/one-line.js';
import { createConnectionMachine, STATE_NAMES, type ConnectionActor } from './connection-machine.js';

/**
 * A status is shown a line per field (`connections status`, the dashboard) and written on every change: the remote's
 * card name and an error quoting the remote (its card's protocolVersion, its url) are one printable line, cut short.
 */
const MAX_REMOTE_NAME = 200;
const MAX_STATUS_ERROR = 1_000;

export interface ConnectionSettingsOfSupervisor {
  backoffBaseMs: number;
  backoffMaxMs: number;
  circuitFailures: number;
  coolDownMs: number;
  /** a call waits this long at most for a connection still discovering its remote */
  readyWaitMs: number;
  /** how often the store is read for connections added, changed or removed by another process (the CLI) */
  rescanMs: number;
}

export interface ConnectionSupervisorOptions {
  connections: ConnectionStore;
  client: A2AClient;
  /** unseals a record's credentials (the secret box lives with the admin operations) */
  openCredentials(rec: ConnectionRecord): Credentials;
  /** keeps a finished call's result (summary, raw when the connection says so) */
  keepResult(o: { rec: ConnectionRecord; agentId: string | undefined; task: RemoteTask }): Promise<unknown>;
  clock: Clock;
  timers: Timers;
  random?: () => number;
  settings: ConnectionSettingsOfSupervisor;
  log: Log;
  /** false: keep the actors' status to this process (a one-off `a2a-gateway call` must not overwrite a server's) */
  reportStatus?: boolean;
}

interface Live {
  rec: ConnectionRecord;
  endpoint: RemoteEndpoint;
  actor: ConnectionActor;
  /** waiters for the actor to leave discovering or half-open */
  waiters: Set<() => void>;
  /** the code of the last card read's failure (cleared when one succeeds): what a refusal while backing off says */
  discoveryFailure: OutboundErrorCode | undefined;
  stop(): void;
}

const keyOf = (workspace: string, name: string) => `${workspace}\u0000${name}`;
const refuse = (code: ConstructorParameters<typeof OutboundError>[0], message: string) => new OutboundError(code, message);

export class ConnectionSupervisor implements ConnectionCalls {
  private readonly live = new Map<string, Live>();
  private cancelRescan: (() => void) | undefined;
  private stopped = false;
  private scanning: Promise<void> = Promise.resolve();

  constructor(private readonly o: ConnectionSupervisorOptions) {}

  /** Starts an actor for every stored connection (each discovers its remote), and rereads the store every rescanMs. */
  async start(): Promise<void> {
    await this.rescan();
    const arm = () => {
      if (this.stopped) return;
      this.cancelRescan = this.o.timers.after(this.o.settings.rescanMs, () => {
        this.scanning = this.rescan()
          .catch((e: unknown) => this.o.log('connection rescan failed', { error: errorText(e) }))
          .finally(arm);
      });
    };
    arm();
  }

  /** Brings the live actors in line with the store: new connections start, changed ones restart, removed ones stop. */
  async rescan(): Promise<void> {
    const recs = await this.o.connections.list();
    const seen = new Set<string>();
    for (const rec of recs) {
      seen.add(keyOf(rec.workspace, rec.name));
      try {
        this.ensure(rec);
      } catch (e) {
        // one record that cannot start (credentials sealed under another secret) never keeps the others from starting
        this.o.log('connection not started', { connection: rec.name, workspace: rec.workspace, error: errorText(e) });
      }
    }
    for (const [k, l] of this.live) if (!seen.has(k)) this.retire(k, l);
  }

  /** The live state of a connection's actor, as its status record says it (undefined when none runs here). */
  status(workspace: string, name: string): ConnectionStatus | undefined {
    const l = this.live.get(keyOf(workspace, name));
    return l && this.statusOf(l);
  }

  /** Reads the remote's card afresh with the connection's settings and credentials (the dashboard's "test"). */
  async testCard(workspace: string, name: string): Promise<{ dialect: string; card: Record<string, unknown> }> {
    const l = this.live.get(keyOf(workspace, name));
    if (!l) throw refuse('no_connection', `connection '${name}' is not running on this instance yet`);
    const d = await this.o.client.discover(l.endpoint, { fresh: true });
    return { dialect: d.dialect, card: { ...d.card } };
  }

  /** How many connections' actors are in each state now (read on a metrics scrape). */
  states(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const l of this.live.values()) {
      const st = this.statusOf(l).state;
      out[st] = (out[st] ?? 0) + 1;
    }
    return out;
  }

  /** Runs one outbound call: the checks (agent, trust, data types) before anything leaves, then the remote. */
  async call(c: ConnectionCall): Promise<RemoteTask> {
    const rec = await this.o.connections.get(c.workspace, c.connection);
    if (!rec) throw refuse('no_connection', `no connection '${c.connection}' in workspace '${c.workspace}'`);
    if (c.agentId !== undefined && rec.agents.length > 0 && !rec.agents.includes(c.agentId)) {
      throw refuse('not_permitted', `agent '${c.agentId}' may not use connection '${rec.name}' (it allows: ${rec.agents.join(', ')})`);
    }
    if (c.stream === true && !trustAllows(rec.trust, 'stream')) {
      throw refuse('trust_refused', `connection '${rec.name}' has trust level ${rec.trust}: streaming needs admin`);
    }
    if (!trustAllows(rec.trust, 'send')) throw refuse('trust_refused', `connection '${rec.name}' has trust level ${rec.trust}: sending needs execute or above`);
    const bad = refusedPart(c.message.parts, rec.allowedDataTypes);
    if (bad) {
      throw refuse(
        'data_type_refused',
        `message.parts.${bad.index}: a ${bad.kind} part may not be sent over connection '${rec.name}' (allowed: ${rec.allowedDataTypes.join(', ')}); nothing was sent`,
      );
    }
    const live = this.ensure(rec);
    await this.ready(live);
    const stream = c.stream === 'auto' ? trustAllows(rec.trust, 'stream') : c.stream;
    const mayCancel = trustAllows(rec.trust, 'cancel');
    const taskId = c.taskId ?? c.message.taskId;
    const contextId = c.contextId ?? c.message.contextId;
    // the remote's ids travel as the send's own fields, in the remote's dialect
    const { taskId: _t, contextId: _c, ...message } = c.message;
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    if (c.signal?.aborted) abort.abort();
    c.signal?.addEventListener('abort', onAbort);
    let task: RemoteTask;
    try {
      task = await this.o.client.send({
        endpoint: live.endpoint,
        message,
        ...(taskId !== undefined && { taskId }),
        ...(contextId !== undefined && { contextId }),
        stream,
        signal: abort.signal,
        cancelRemote: mayCancel,
        // a task we may cancel must have a known id from the start: a blocking rev B send learns it only with the answer
        ...(mayCancel && !stream && { blocking: false }),
        ...(c.onEvent && { onEvent: c.onEvent }),
      });
    } catch (e) {
      if (isRemoteFault(e)) live.actor.send({ type: 'CALL_FAULT', error: errorText(e) });
      // not the remote's health, but what every call will meet until the card or the connection changes: shown in the status
      else if (e instanceof OutboundError && e.code === 'origin_refused') live.actor.send({ type: 'CALL_REFUSED', error: errorText(e) });
      throw e;
    } finally {
      c.signal?.removeEventListener('abort', onAbort);
    }
    live.actor.send({ type: 'CALL_OK' });
    await this.o.keepResult({ rec, agentId: c.agentId, task });
    return task;
  }

  /** Stops every actor (their status says stopped) and the rescans; idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRescan?.();
    await this.scanning;
    for (const [k, l] of this.live) this.retire(k, l);
  }

  /** The live actor of this record, started (or restarted, when the record changed) as needed. */
  private ensure(rec: ConnectionRecord): Live {
    const k = keyOf(rec.workspace, rec.name);
    const cur = this.live.get(k);
    if (cur && cur.rec.updatedAt === rec.updatedAt && cur.rec.id === rec.id && cur.actor.getSnapshot().status === 'active') return cur;
    if (cur) this.retire(k, cur);
    const l = this.spawn(rec);
    this.live.set(k, l);
    return l;
  }

  private spawn(rec: ConnectionRecord): Live {
    const endpoint: RemoteEndpoint = {
      url: rec.url,
      credentials: this.o.openCredentials(rec),
      ...(rec.dialect !== 'auto' && { dialect: rec.dialect }),
      allowedOrigins: rec.allowedOrigins,
      name: rec.name,
    };
    const machine = createConnectionMachine({
      discover: async ({ fresh }) => {
        try {
          const d = await this.o.client.discover(endpoint, { fresh });
          l.discoveryFailure = undefined;
          return { dialect: d.dialect, remoteName: d.card.name };
        } catch (e) {
          l.discoveryFailure = e instanceof OutboundError ? e.code : undefined;
          throw e;
        }
      },
      random: this.o.random ?? Math.random,
      now: () => this.o.clock.now(),
      ...this.o.settings,
    });
    const actor = createActor(machine, {
      clock: { setTimeout: (fn: () => void, ms: number) => this.o.timers.after(ms, fn), clearTimeout: (cancel: () => void) => cancel() },
    });
    const l: Live = { rec, endpoint, actor, waiters: new Set(), discoveryFailure: undefined, stop: () => {} };
    let lastWritten = '';
    const sub = actor.subscribe({
      next: () => {
        for (const w of l.waiters) w();
        const s = this.statusOf(l);
        const text = JSON.stringify({ ...s, updatedAt: 0 });
        if (text === lastWritten || this.o.reportStatus === false) return;
        lastWritten = text;
        this.o.connections
          .putStatus(rec.workspace, rec.name, s)
          .catch((e: unknown) => this.o.log('connection status not stored', { connection: rec.name, workspace: rec.workspace, error: errorText(e) }));
      },
      // a crashed actor is replaced by a fresh one for the same record: one bad moment never ends a connection
      error: (e: unknown) => {
        this.o.log('connection actor crashed; restarting it', { connection: rec.name, workspace: rec.workspace, error: errorText(e) });
        const k = keyOf(rec.workspace, rec.name);
        if (this.live.get(k) === l && !this.stopped) {
          this.live.delete(k);
          this.ensure(rec);
        }
      },
    });
    l.stop = () => {
      actor.send({ type: 'STOP' });
      sub.unsubscribe();
      for (const w of l.waiters) w();
    };
    actor.start();
    return l;
  }

  private retire(k: string, l: Live): void {
    this.live.delete(k);
    l.stop();
    this.o.client.forget(l.endpoint);
  }

  private statusOf(l: Live): ConnectionStatus {
    const snap = l.actor.getSnapshot();
    const ctx = snap.context;
    const state = STATE_NAMES[String(snap.value)] ?? 'stopped';
    return {
      state,
      failures: ctx.failures,
      ...(ctx.lastError !== undefined && { lastError: oneLine(ctx.lastError, MAX_STATUS_ERROR) }),
      ...((state === 'backing-off' || state === 'circuit-open') && ctx.nextRetryAt !== undefined && { nextRetryAt: ctx.nextRetryAt }),
      ...(ctx.dialect !== undefined && { dialect: ctx.dialect }),
      ...(ctx.remoteName !== undefined && { remoteName: oneLine(ctx.remoteName, MAX_REMOTE_NAME) }),
      updatedAt: this.o.clock.now(),
    };
  }

  /** Resolves when the connection is ready; refuses at once when it is backing off or its circuit is open. */
  private async ready(l: Live): Promise<void> {
    const deadline = this.o.clock.now() + this.o.settings.readyWaitMs;
    for (;;) {
      const s = this.statusOf(l);
      if (s.state === 'ready') return;
      const why = s.lastError ? `: ${s.lastError}` : '';
      const when = s.nextRetryAt !== undefined ? ` (next attempt ${new Date(s.nextRetryAt).toISOString()})` : '';
      if (s.state === 'circuit-open') throw refuse('circuit_open', `connection '${l.rec.name}' is refusing calls after repeated failures${why}${when}`);
      // nothing answered the card read (connection refused, DNS, TLS): `unreachable`, as the call's own send would be;
      // a remote that answered it (HTTP 503, 401, a card that does not validate) is there but not usable: `unavailable`
      if (s.state === 'backing-off')
        throw refuse(l.discoveryFailure === 'unreachable' ? 'unreachable' : 'unavailable', `connection '${l.rec.name}' cannot reach its remote${why}${when}`);
      if (s.state === 'stopped') throw refuse('unavailable', `connection '${l.rec.name}' was stopped`);
      const left = deadline - this.o.clock.now();
      if (left <= 0) throw refuse('unavailable', `connection '${l.rec.name}' is still discovering its remote`);
      await new Promise<void>((resolve) => {
        const cancel = this.o.timers.after(left, done);
        function done() {
          cancel();
          l.waiters.delete(done);
          resolve();
        }
        l.waiters.add(done);
      });
    }
  }
}
