// Orders both engines give their listings in, so the contract suite sees the same answer from each.

/** Oldest first; records made in the same millisecond by id (code-unit order). */
export function oldestFirst(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
