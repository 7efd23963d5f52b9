// Ids that sort by creation time (UUID version 7, RFC 9562): the ids the gateway picks for new tasks, contexts and
// outbound results. Stored keys lead with them, so a commit's new records land side by side instead of on random pages.
import { randomFillSync } from 'node:crypto';

/** random bytes drawn in bulk: one system call per 256 ids, as randomUUID does */
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let next = POOL_IDS;

/**
 * A UUIDv7: 48 bits of Unix milliseconds (`now`, from the injected clock), the version and variant bits, and 74
 * random bits, as unguessable as a task id needs to be (a task is reachable only by its workspace's keys anyway).
 */
export function timeOrderedId(now: number): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const b = pool.subarray(next * 16, next * 16 + 16);
  next++;
  // a clock before 1970 or past year 10889 cannot be written in 48 bits: clamp rather than wrap out of order
  const ms = Math.min(Math.max(Math.floor(now), 0), 0xffff_ffff_ffff);
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms % 0x1_0000_0000;
  b[0] = high >>> 8;
  b[1] = high & 0xff;
  b[2] = low >>> 24;
  b[3] = (low >>> 16) & 0xff;
  b[4] = (low >>> 8) & 0xff;
  b[5] = low & 0xff;
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
