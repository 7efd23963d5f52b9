// What the store and its Redis connections tell the operator while the gateway runs, each said once per reason: a
// dropped Redis connection (not once per retry) and a damaged stored record (not on every rescan).
import { errorText, type Log } from './runtime/log.js';
import { SaidOnce } from './runtime/said-once.js';
import type { StoreCorruptError } from './runtime/store/errors.js';

/** A Redis connection that drops says so once per reason, not once per retry. */
export function redisErrorLog(log: Log): (e: Error) => void {
  let lastRedisError = '';
  return (e: Error) => {
    const text = errorText(e);
    if (text !== lastRedisError) log('redis connection error', { error: text });
    lastRedisError = text;
  };
}

/**
 * A damaged record (another version's, or a damaged file) is left out of listings, so the rest still start and serve;
 * said once per record, not on every rescan.
 */
export function damagedRecordLog(log: Log): (e: StoreCorruptError) => void {
  const reportedCorrupt = new SaidOnce();
  return (e: StoreCorruptError) => {
    if (!reportedCorrupt.first(`${e.record} ${e.id}`)) return;
    log('damaged stored record left out; repair or remove it', { record: e.record, id: e.id, error: e.message });
  };
}
