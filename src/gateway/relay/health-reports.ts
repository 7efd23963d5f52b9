// A live tunnel's health reports as the gateway takes them: each agent's state is kept at once (this instance's turns
// read it), but only a change of an agent's up/down (or of its error while down) counts, and what is told of the changes (the log line, the
// broadcast to the other instances) goes out at most once per HEALTH_TELL_MS per tunnel: a relay reporting a
// thousand times a second costs a log line and a Redis message a second, not a thousand.
import type { RelayAgentHealth, RelayFrame } from '../../protocol/tunnel.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import { loggedText } from '../../runtime/log.js';

/** The least time between two tellings of one tunnel's health changes. */
export const HEALTH_TELL_MS = 1_000;

export type HealthReport = Extract<RelayFrame, { t: 'health' }>['agents'][number];

export interface HealthReportsDeps {
  clock: Clock;
  timers: Timers;
  /** the kept states, by agent (the link's) */
  health: Map<string, RelayAgentHealth>;
  /** tells the agents whose state changed since the last telling (their current states are in `health`) */
  tell: (changed: Array<{ name: string; up: boolean; error?: string }>) => void;
}

/** what a telling says of an agent: up, or down with its error */
const toldAs = (h: RelayAgentHealth): string => (h.up ? 'up' : `down:${h.error ?? ''}`);

/**
 * An agent's change as the log line tells it: `name:up`, or `name:down (its error)`: a down agent whose error changed
 * is told for its new error, which the line must name. The error is the relay's text: bounded, keys masked.
 */
export const loggedHealth = (a: { name: string; up: boolean; error?: string }): string =>
  a.up ? `${a.name}:up` : `${a.name}:down${a.error === undefined ? '' : ` (${loggedText(a.error, 160)})`}`;

export class HealthReports {
  /** agents changed since the last telling */
  private readonly dirty = new Set<string>();
  /** each agent's state as last told (`toldAs`): a flap within one window (down, then up again) tells nothing */
  private readonly told = new Map<string, string>();
  private lastTold = Number.NEGATIVE_INFINITY;
  private stopTimer: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly d: HealthReportsDeps) {}

  /**
   * Takes one frame's reports. A report of an unchanged state changes nothing: its time stays when the state began.
   * A down agent whose error changed (refused, then HTTP 500) is a change: its error is the latest, its time still
   * when it went down.
   */
  take(reports: readonly HealthReport[]): void {
    if (this.stopped) return;
    const checkedAt = new Date(this.d.clock.now()).toISOString();
    for (const a of reports) {
      const was = this.d.health.get(a.name);
      if (was?.up === a.up && (a.up || was.error === a.error)) continue;
      this.d.health.set(a.name, { up: a.up, checkedAt: was?.up === a.up ? was.checkedAt : checkedAt, ...(a.error !== undefined && { error: a.error }) });
      this.dirty.add(a.name);
    }
    if (this.dirty.size === 0 || this.stopTimer) return;
    const wait = this.lastTold + HEALTH_TELL_MS - this.d.clock.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.stopTimer = this.d.timers.after(wait, () => {
      this.stopTimer = undefined;
      this.flush();
    });
  }

  stop(): void {
    this.stopped = true;
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  private flush(): void {
    if (this.stopped) return;
    const changed: Array<{ name: string; up: boolean; error?: string }> = [];
    for (const name of this.dirty) {
      const h = this.d.health.get(name);
      if (h === undefined || this.told.get(name) === toldAs(h)) continue;
      this.told.set(name, toldAs(h));
      changed.push({ name, up: h.up, ...(!h.up && h.error !== undefined && { error: h.error }) });
    }
    this.dirty.clear();
    if (changed.length === 0) return;
    this.lastTold = this.d.clock.now();
    this.d.tell(changed);
  }
}
