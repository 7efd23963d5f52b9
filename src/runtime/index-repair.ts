// The periodic workspace index repair on a shared store: during a rolling upgrade an instance of an older version
// writes tasks without their workspace index entry, so tasks/list on the newer ones would miss them for good. Every
// `everyMs` one instance (the store's claim) runs a pass of bounded store steps that adds what is missing.
import type { Timers } from './clock.js';
import { Periodic } from './periodic.js';
import type { TaskStore } from './store/types.js';

export interface IndexRepairOptions {
  tasks: Pick<TaskStore, 'claimIndexRepair' | 'repairIndexStep'>;
  timers: Timers;
  /** how often a pass runs among all instances sharing the store (the first one this long after start) */
  everyMs: number;
  onError?: (e: unknown) => void;
  /** a pass added entries: some writer left tasks out of the index */
  onRepaired?: (added: number) => void;
}

export class IndexRepair {
  private readonly periodic: Periodic;

  constructor(private readonly o: IndexRepairOptions) {
    this.periodic = new Periodic({
      timers: o.timers,
      everyMs: o.everyMs,
      run: () => this.pass(),
      ...(o.onRepaired && { onDone: o.onRepaired }),
      ...(o.onError && { onError: o.onError }),
    });
  }

  /** Runs a pass every `everyMs`, when this instance wins the claim for that period. */
  start(): void {
    this.periodic.start();
  }

  /** One pass now if no instance claimed this period; returns how many entries it added. */
  async pass(): Promise<number> {
    if (!(await this.o.tasks.claimIndexRepair(this.o.everyMs))) return 0;
    let added = 0;
    let cursor = '';
    do {
      const step = await this.o.tasks.repairIndexStep(cursor);
      added += step.added;
      cursor = step.cursor;
    } while (cursor !== '' && !this.periodic.isStopped);
    return added;
  }

  /** Resolves when the pass under way (if any) is done: tests wait on it after moving a ManualClock. */
  idle(): Promise<number> {
    return this.periodic.idle();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }
}
