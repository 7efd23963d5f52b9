// The delivery worker: claims due queue heads from the store, makes one attempt each, and completes or reschedules them.
//
// Every instance runs one; the store's leases keep two instances off the same job (at-least-once:
// a receiver dedupes on webhook-id, which is the same on every attempt of a job). A crashed instance's
// leases lapse, or are freed when it starts again under the same instance id. Time comes from
// the injected clock and timers: backoff, the per-request timeout and the wake-ups. Fair claiming: one workspace
// has at most `perWorkspace` of the attempts in flight (across every instance on a shared store), so its hanging
// receivers cannot hold back the others'.
import type { PushJob, StoredPushConfig } from '../../protocol/records.js';
import type { Clock, Timers } from '../clock.js';
import type { Log } from '../log.js';
import type { ClaimedPushJob, KeyStore, LeaseHolder, PushConfigStore, PushJobStore } from '../store/types.js';
import { type AgentPermits, pushViewOf } from './key-view.js';
import { backoffDelay } from './backoff.js';
import { deliverOnce, type DeliveryOutcome } from './deliver.js';
import type { WebhookSecrets } from './secrets.js';
import type { PushConfigSeal } from './config-secrets.js';
import { SecretBoxError } from '../secret-box.js';
import { webhookHeaders } from './signing.js';
import type { Allowlist, Resolve } from '../net/guard.js';

export interface DeliveryPolicy {
  /** per attempt */
  timeoutMs: number;
  /** a job is given up after this many failed attempts */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export interface PushWorkerOptions {
  jobs: PushJobStore;
  configs: PushConfigStore;
  keys: KeyStore;
  /** the task's agent's own check of a config's key (absent: none) */
  permits?: AgentPermits;
  secrets: WebhookSecrets;
  /** opens a stored config's sealed credentials */
  seal: Pick<PushConfigSeal, 'open'>;
  clock: Clock;
  timers: Timers;
  log: Log;
  allowlist: Allowlist;
  resolve: Resolve;
  policy: DeliveryPolicy;
  /** how long a claim holds a job against other instances; default: the timeout plus 30 s */
  leaseMs?: number;
  /**
   * this instance and run: claims carry it, and the first look at the store frees the leases an earlier run of the
   * same instance left when it died (its jobs go out at once instead of after their lease)
   */
  holder?: LeaseHolder;
  /** the longest the worker sleeps without looking at the store (jobs of a crashed instance); default 5 s */
  pollMs?: number;
  /** attempts in flight at once (each on a different queue); default 16 */
  concurrency?: number;
  /**
   * attempts in flight at once for one workspace (config `push.maxInFlightPerWorkspace`); default 8, half of the
   * default concurrency: a workspace whose receivers hang holds at most this many slots while others' webhooks go out
   * through the rest, and a gateway serving one workspace keeps half its delivery rate
   */
  perWorkspace?: number;
  random?: () => number;
  /** told about every attempt (tests, metrics); never given the secret */
  onAttempt?: (a: AttemptReport) => void;
}

export interface AttemptReport {
  job: PushJob;
  outcome: DeliveryOutcome;
  /** what became of the job */
  result: 'delivered' | 'retry' | 'gave-up' | 'disabled' | 'released';
}

/** attempts in flight at once for one workspace unless configured: half of the default 16 */
export const DEFAULT_PER_WORKSPACE = 8;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class PushWorker {
  private stopped = false;
  private pumping: Promise<void> | undefined;
  private again = false;
  private cancelWake: (() => void) | undefined;
  private readonly inflight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly perWorkspace: number;
  /** attempts in flight per workspace (what the claim's fairness bound counts) */
  private readonly heldBy = new Map<string, number>();
  /** set until the earlier run's leases were freed (retried on each look while the store fails) */
  private releaseFirst: LeaseHolder | undefined;

  constructor(private readonly o: PushWorkerOptions) {
    this.releaseFirst = o.holder;
    this.leaseMs = o.leaseMs ?? o.policy.timeoutMs + 30_000;
    this.pollMs = o.pollMs ?? 5_000;
    this.concurrency = o.concurrency ?? 16;
    this.perWorkspace = o.perWorkspace ?? DEFAULT_PER_WORKSPACE;
  }

  start(): void {
    this.kick();
  }

  /** Looks for due jobs now (new jobs were stored, an attempt ended, a timer fired). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.again = false;
    this.pumping = this.pump()
      .catch((err: unknown) => {
        this.o.log('push worker: store unavailable, retrying', { error: message(err) });
        this.arm(this.pollMs);
      })
      .finally(() => {
        this.pumping = undefined;
        if (this.again) this.kick();
      });
  }

  /** Resolves when no look at the store and no attempt is under way (tests wait on this between clock moves). */
  async idle(): Promise<void> {
    while (this.pumping || this.inflight.size > 0) {
      await Promise.allSettled([this.pumping, ...[...this.inflight.values()].map((f) => f.done)]);
    }
  }

  /** Stops claiming; attempts under way are aborted and their jobs released (not counted as failures). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelWake?.();
    this.cancelWake = undefined;
    for (const f of this.inflight.values()) f.abort.abort();
    await this.idle();
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.cancelWake?.();
    this.cancelWake = this.o.timers.after(ms, () => {
      this.cancelWake = undefined;
      this.kick();
    });
  }

  private async pump(): Promise<void> {
    const earlier = this.releaseFirst;
    if (earlier) {
      const freed = await this.o.jobs.releaseEarlierLeases(earlier);
      this.releaseFirst = undefined;
      if (freed > 0) this.o.log('push jobs leased by this instance before it restarted are claimable again', { jobs: freed });
    }
    const room = this.concurrency - this.inflight.size;
    if (room <= 0) return; // an attempt that ends kicks again
    const now = this.o.clock.now();
    const claimed = await this.o.jobs.claim({
      now,
      leaseMs: this.leaseMs,
      limit: room,
      perWorkspace: { max: this.perWorkspace, held: this.heldBy },
      ...(this.o.holder && { holder: this.o.holder }),
    });
    for (const c of claimed) this.launch(c);
    if (this.stopped) return;
    // heads of a workspace at its share are left out: the attempt of it that ends kicks, not a timer
    const next = await this.o.jobs.nextDueAt({ passOver: { max: this.perWorkspace, held: this.heldBy }, now: this.o.clock.now() });
    const later = this.o.clock.now();
    // a head still due that no slot was left for: the attempt that frees a slot kicks, so wait as for nothing due
    // rather than look again every 10 ms while attempts hang
    const waiting = next !== undefined && next <= later && this.saturated();
    const wait = next === undefined || waiting ? this.pollMs : Math.min(this.pollMs, Math.max(next - later, 10));
    this.arm(wait);
  }

  /** true when no slot is free, or some workspace holds its whole share */
  private saturated(): boolean {
    if (this.inflight.size >= this.concurrency) return true;
    for (const n of this.heldBy.values()) if (n >= this.perWorkspace) return true;
    return false;
  }

  private launch(c: ClaimedPushJob): void {
    const abort = new AbortController();
    const ws = c.job.workspaceId;
    this.heldBy.set(ws, (this.heldBy.get(ws) ?? 0) + 1);
    // claimed while stopping: the attempt ends at once and releases the job
    if (this.stopped) abort.abort();
    const done = this.attempt(c, abort.signal)
      .catch((err: unknown) => this.o.log('push attempt could not be recorded', { job: c.job.id, error: message(err) }))
      .finally(() => {
        this.inflight.delete(c.job.id);
        const left = (this.heldBy.get(ws) ?? 1) - 1;
        if (left > 0) this.heldBy.set(ws, left);
        else this.heldBy.delete(ws);
        this.kick();
      });
    this.inflight.set(c.job.id, { abort, done });
  }

  private async attempt(c: ClaimedPushJob, signal: AbortSignal): Promise<void> {
    const { job } = c;
    const cfg = await this.o.configs.get(job.taskKey, job.configId);
    if (!cfg || cfg.disabled) {
      // deleted, or disabled by an earlier 410: the update has nowhere to go
      await this.o.jobs.complete(c);
      this.o.log('push job dropped', { job: job.id, task: job.taskKey, config: job.configId, why: cfg ? 'config disabled' : 'config deleted' });
      return;
    }
    if (!(await pushViewOf({ keys: this.o.keys, keyId: cfg.keyId, now: this.o.clock.now(), agentId: job.agentId, permits: this.o.permits }))) {
      // the key that registered the config was revoked (or expired), or taken off the agent's permitted keys, after
      // the update was queued: its webhooks stop
      await this.o.jobs.complete(c);
      this.o.log('push job dropped', {
        job: job.id,
        task: job.taskKey,
        config: job.configId,
        why: 'the registering key was revoked or expired, or may no longer reach the agent',
      });
      return;
    }
    const outcome = await this.send(job, cfg, signal);
    if (signal.aborted) {
      await this.o.jobs.retry(c, { attempts: job.attempts, dueAt: this.o.clock.now(), ...(job.lastError !== undefined && { lastError: job.lastError }) });
      return this.report(job, outcome, 'released');
    }
    const fields = { job: job.id, task: job.taskKey, config: job.configId, attempt: job.attempts + 1 };
    if (outcome.kind === 'delivered') {
      await this.o.jobs.complete(c);
      return this.report(job, outcome, 'delivered');
    }
    if (outcome.kind === 'gone') {
      await this.o.configs.put({ ...cfg, disabled: true });
      await this.o.jobs.complete(c);
      this.o.log('push config disabled: the receiver answered 410 Gone', fields);
      return this.report(job, outcome, 'disabled');
    }
    const attempts = job.attempts + 1;
    if (attempts >= this.o.policy.maxAttempts) {
      await this.o.jobs.complete(c);
      this.o.log('push job given up', { ...fields, reason: outcome.reason });
      return this.report(job, outcome, 'gave-up');
    }
    const delay = backoffDelay({ baseMs: this.o.policy.backoffBaseMs, maxMs: this.o.policy.backoffMaxMs }, attempts, this.o.random);
    await this.o.jobs.retry(c, { attempts, dueAt: this.o.clock.now() + delay, lastError: outcome.reason });
    this.o.log('push attempt failed, will retry', { ...fields, reason: outcome.reason, retryInMs: delay });
    this.report(job, outcome, 'retry');
  }

  private async send(job: PushJob, stored: StoredPushConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
    let cfg: StoredPushConfig;
    try {
      cfg = this.o.seal.open(stored);
    } catch (e) {
      if (!(e instanceof SecretBoxError)) throw e;
      return { kind: 'failed', reason: "the config's credentials do not open with this server secret (register the config again)" };
    }
    const secret = await this.o.secrets.ensure(job.workspaceId);
    const timestamp = Math.floor(this.o.clock.now() / 1000);
    const headers: Record<string, string> = webhookHeaders({ secret, id: job.id, timestamp, body: job.body });
    if (cfg.token !== undefined) headers['X-A2A-Notification-Token'] = cfg.token;
    const bearer = cfg.authentication?.schemes.some((s) => s.toLowerCase() === 'bearer');
    if (bearer && cfg.authentication?.credentials) headers.Authorization = `Bearer ${cfg.authentication.credentials}`;
    return deliverOnce({
      url: cfg.url,
      body: job.body,
      headers,
      timeoutMs: this.o.policy.timeoutMs,
      allowlist: this.o.allowlist,
      resolve: this.o.resolve,
      timers: this.o.timers,
      signal,
    });
  }

  private report(job: PushJob, outcome: DeliveryOutcome, result: AttemptReport['result']): void {
    this.o.onAttempt?.({ job, outcome, result });
  }
}
