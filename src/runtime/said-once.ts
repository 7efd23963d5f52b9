// What a log says once per subject (a damaged record met on every request, on every rescan): the first time names it,
// every later time would only flood the log. Bounded: past `max` subjects it starts over, so subjects without end
// cost no memory without end (at worst a subject is said again).
export class SaidOnce {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 10_000) {}

  /** true the first time `subject` is given (since the last start-over), false after */
  first(subject: string): boolean {
    if (this.seen.has(subject)) return false;
    if (this.seen.size >= this.max) this.seen.clear();
    this.seen.add(subject);
    return true;
  }
}
