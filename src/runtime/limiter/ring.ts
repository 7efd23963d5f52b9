// A ring of request timestamps for one key and one window, oldest first; at most `limit` are ever recorded.

/** Small first: most keys never come near their hour limit, and 1000 slots are 8 KB per key. */
const INITIAL_CAPACITY = 8;

export class TimestampRing {
  private buf: Float64Array;
  private head = 0;
  private n = 0;
  private limitValue: number;

  constructor(
    readonly windowMs: number,
    limit: number,
  ) {
    this.limitValue = limit;
    this.buf = new Float64Array(Math.min(limit, INITIAL_CAPACITY));
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Drops entries at or before now - windowMs and returns how many remain. Amortised O(1): each entry leaves once. */
  expire(now: number): number {
    if (this.n === 0) return 0;
    const cutoff = now - this.windowMs;
    const cap = this.buf.length;
    if (this.at(this.n - 1) <= cutoff) {
      // everything is stale (an idle key): forget it in one step rather than one slot at a time
      this.n = 0;
      return 0;
    }
    while (this.at(0) <= cutoff) {
      this.head = this.head + 1 === cap ? 0 : this.head + 1;
      this.n--;
    }
    return this.n;
  }

  get size(): number {
    return this.n;
  }

  /** The i-th oldest live entry. */
  at(i: number): number {
    return this.buf[(this.head + i) % this.buf.length]!;
  }

  /** The entry whose expiry frees a slot; meaningful only when size >= limit. */
  gate(): number {
    return this.n >= this.limitValue ? this.at(this.n - this.limitValue) : 0;
  }

  push(t: number): void {
    if (this.n === this.buf.length) this.resize(Math.max(this.n + 1, Math.min(this.buf.length * 2, this.limitValue)));
    this.buf[(this.head + this.n) % this.buf.length] = t;
    this.n++;
  }

  /**
   * A per-key override changed the limit. Live entries are all kept, even above a lowered limit: they
   * were really spent, and dropping them would let a later raise hand that budget out twice.
   */
  setLimit(limit: number): void {
    if (limit === this.limitValue) return;
    this.limitValue = limit;
    this.resize(Math.max(this.n, Math.min(limit, INITIAL_CAPACITY)));
  }

  private resize(capacity: number): void {
    const next = new Float64Array(capacity);
    for (let i = 0; i < this.n; i++) next[i] = this.at(i);
    this.buf = next;
    this.head = 0;
  }
}
