// Instance liveness for scale-out: each instance stamps its last beat in the shared store; a silent one is presumed dead.
import { randomUUID } from 'node:crypto';
import type { Clock, Timers } from './clock.js';
import type { MetaStore } from './store/types.js';

export interface PresenceOptions {
  meta: MetaStore;
  clock: Clock;
  timers: Timers;
  instanceId: string;
  /** how often this instance stamps its beat */
  beatMs: number;
  /** an instance silent for longer than this is presumed dead */
  deadAfterMs: number;
  /** a beat that could not be stored (the next one tries again) */
  onError?: (e: unknown) => void;
  /**
   * a sweep (`afterBeat`) that failed (the next one tries again): told apart from a failed beat, since the two mean
   * different things to an operator (this instance may be judged dead, or dead instances' tasks stay running)
   */
  onSweepError?: (e: unknown) => void;
  /**
   * Another running process beats under this instance id (each start fails the tasks the other runs): told at the
   * first beat that finds the other's stamp, then at most once per `deadAfterMs`.
   */
  onTwin?: () => void;
}

const keyOf = (id: string) => `instance-beat:${id}`;
/** which process run stamped the id's last beat (the beat itself stays a bare time, as older instances read it) */
const bootKeyOf = (id: string) => `instance-boot:${id}`;

/**
 * A beat is collectable this many `deadAfterMs` after it was stamped: every instance id that ever ran (port-0 runs,
 * restarts under new ids) would otherwise leave its key in the store for good. Long past dead, so a collected beat
 * reads as what it was, dead; slack for clocks that differ between instances.
 */
export const BEAT_KEPT_DEAD_AFTERS = 3;

export class Presence {
  private cancel: (() => void) | undefined;
  private stopped = false;
  /** when this instance's last beat was stored */
  private lastBeat: number | undefined;
  /** since when its beats have been stored without a gap (undefined: it was cut off from the store) */
  private steadySince: number | undefined;
  /** this process run's stamp */
  private readonly boot = randomUUID();
  /** when a twin was last told (undefined: never) */
  private twinToldAt: number | undefined;
  /** the beat under way (or the last one) */
  private beating: Promise<void> = Promise.resolve();
  /** the sweep under way (undefined: none) */
  private sweeping: Promise<void> | undefined;

  constructor(private readonly o: PresenceOptions) {}

  /**
   * Beats now and then every `beatMs`; after each beat, `afterBeat` runs (a sweep for orphaned work), but only once
   * this instance has itself beaten without a gap for `deadAfterMs`. An instance that could not reach the store
   * (a Redis stall) saw nobody beat meanwhile, and neither could the others: judging them at once would fail the
   * tasks of live instances. After `deadAfterMs` of steady beats, every live instance has beaten again.
   * The sweep runs beside the beats, never before the next one: a long sweep (many stuck tasks, a slow store) would
   * otherwise leave this live instance silent, and the others would fail its tasks. One sweep at a time.
   */
  start(afterBeat: () => Promise<void>): void {
    const tick = () => {
      this.beating = beat().finally(() => {
        if (!this.stopped) this.cancel = this.o.timers.after(this.o.beatMs, tick);
      });
    };
    const beat = async () => {
      if (this.stopped) return;
      try {
        const now = this.o.clock.now();
        const expiry = { now, expiresAt: now + BEAT_KEPT_DEAD_AFTERS * this.o.deadAfterMs };
        await this.checkTwin(now);
        await this.o.meta.put(keyOf(this.o.instanceId), now, expiry);
        await this.o.meta.put(bootKeyOf(this.o.instanceId), this.boot, expiry);
        // a gap: a beat that failed, or a stall that held this one past two periods
        const steady = this.lastBeat !== undefined && now - this.lastBeat <= 2 * this.o.beatMs && this.steadySince !== undefined;
        if (!steady) this.steadySince = now;
        this.lastBeat = now;
        if (now - this.steadySince! >= this.o.deadAfterMs && this.sweeping === undefined) {
          this.sweeping = afterBeat()
            // a failed sweep costs one sweep; the beats go on and the next sweep tries again
            .catch((e: unknown) => this.o.onSweepError?.(e))
            .finally(() => {
              this.sweeping = undefined;
            });
        }
      } catch (e) {
        this.steadySince = undefined;
        // a store hiccup costs one beat, never the process; the next beat tries again
        this.o.onError?.(e);
      }
    };
    tick();
  }

  /** Resolves once the beat under way and the sweep under way (if any) are done: tests wait on it after moving a ManualClock. */
  async idle(): Promise<void> {
    await this.beating;
    await this.sweeping;
  }

  /**
   * Once this run has stamped a beat, a stamp of another run under the same id means a second live process uses the
   * id (a process that died stamps nothing more; a restarted one stamps first, finding only its predecessor's).
   */
  private async checkTwin(now: number): Promise<void> {
    if (this.lastBeat === undefined || !this.o.onTwin) return;
    const stamp = await this.o.meta.get(bootKeyOf(this.o.instanceId));
    if (stamp === undefined || stamp === null || stamp === this.boot) return;
    if (this.twinToldAt !== undefined && now - this.twinToldAt < this.o.deadAfterMs) return;
    this.twinToldAt = now;
    this.o.onTwin();
  }

  /** No more beats; resolves once the beat and the sweep under way are done (the store may then be closed). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.idle();
  }

  /** true when `id` has not beaten within `deadAfterMs` (or never did, or its beat was collected) */
  async isDead(id: string): Promise<boolean> {
    const seen = await this.o.meta.get(keyOf(id));
    return typeof seen !== 'number' || this.o.clock.now() - seen > this.o.deadAfterMs;
  }
}
