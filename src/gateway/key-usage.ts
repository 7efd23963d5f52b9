// When each key was last used on this instance (the dashboard's "last used"): one Map write per authenticated call,
// nothing stored (a per-call store write would cost every call a round trip).
export class KeyUsage {
  private readonly last = new Map<string, number>();

  seen(keyId: string, at: number): void {
    this.last.set(keyId, at);
  }

  lastUsed(keyId: string): number | undefined {
    return this.last.get(keyId);
  }
}
