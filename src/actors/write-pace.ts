// How long a task's next progress write waits after the one before it. A record is rewritten whole on every write, so
// a task that streams into a large artifact would otherwise spend the main thread packing it again and again (100,000
// one-byte chunks: packing was more than half of the gateway's CPU during the stream, and every other caller waited).
import type { Part, Task } from '../protocol/model.js';

/**
 * What packing a record costs on the reference machine (msgpackr, measured 2026-11-24): about 0.09 µs per part object
 * (a 100,000-part artifact: 9 ms) and 0.0007 µs per character of text (an 8 MiB text: 5.6 ms).
 */
const PACK_US_PER_PART = 0.09;
const PACK_US_PER_CHAR = 0.0007;
/** a data part's payload is not measured (that would cost what packing costs): counted as this many characters */
const DATA_PART_CHARS = 64;
/** the wait is this many times the record's packing time: its packing then takes at most a fifth of the thread */
const PACE_FACTOR = 4;
/** a wait under this is not worth holding live events for: small records are written at once */
const MIN_PAUSE_MS = 1;
/** nor longer than this: a subscriber sees a big artifact's chunks at least this often */
const MAX_PAUSE_MS = 250;

const partChars = (p: Part): number => {
  if (p.kind === 'text') return p.text.length;
  if (p.kind === 'file') return (p.file.bytes?.length ?? 0) + (p.file.uri?.length ?? 0);
  return DATA_PART_CHARS;
};

/**
 * The pause before writing `task` again when the write carries only progress (artifact chunks, a `working` message):
 * 0 for a record cheap to pack. One pass over the parts, a small fraction of what packing them costs; called only for
 * a task's later writes, never for a task written once.
 */
export function progressPauseMs(task: Task): number {
  let parts = 0;
  let chars = 0;
  for (const a of task.artifacts) {
    parts += a.parts.length;
    for (const p of a.parts) chars += partChars(p);
  }
  for (const m of task.history) {
    parts += m.parts.length;
    for (const p of m.parts) chars += partChars(p);
  }
  const ms = (PACE_FACTOR * (parts * PACK_US_PER_PART + chars * PACK_US_PER_CHAR)) / 1000;
  return ms < MIN_PAUSE_MS ? 0 : Math.min(ms, MAX_PAUSE_MS);
}
