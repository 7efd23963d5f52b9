// The bench's progress lines (stderr, one prefix per section) and how it words an error in them and in its rows.
export const sectionLog =
  (section: string) =>
  (msg: string): void =>
    void process.stderr.write(`[bench${section ? ` ${section}` : ''}] ${msg}\n`);

export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
