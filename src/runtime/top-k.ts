// Keeping the first `k` of a stream of items in some order without holding or sorting the whole stream: a listing
// of a workspace with millions of tasks keeps only the page it answers (offset + page size), in O(n log k).

/**
 * The `k` items that come first by `before` among all offered, in a heap whose root is the last of those kept, so an
 * item that does not beat it costs one comparison. `before(a, b)` is true when `a` ranks ahead of `b`; it must be a
 * strict total order (break ties), or which of two equal items is kept is unspecified.
 */
export class TopK<T> {
  private readonly heap: T[] = [];
  /** how many items were offered, kept or not (a listing's total size) */
  offered = 0;

  constructor(
    private readonly k: number,
    private readonly before: (a: T, b: T) => boolean,
  ) {}

  offer(item: T): void {
    this.offered++;
    const h = this.heap;
    if (h.length < this.k) {
      h.push(item);
      this.up(h.length - 1);
    } else if (this.k > 0 && this.before(item, h[0]!)) {
      h[0] = item;
      this.down(0);
    }
  }

  /** the kept items, first first */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
  }

  // a max-heap by rank: the parent ranks at or after its children, so the root is the last kept
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[p]!, h[i]!)) return;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let last = i;
      if (l < h.length && this.before(h[last]!, h[l]!)) last = l;
      if (r < h.length && this.before(h[last]!, h[r]!)) last = r;
      if (last === i) return;
      [h[last], h[i]] = [h[i]!, h[last]!];
      i = last;
    }
  }
}
