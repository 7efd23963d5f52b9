// Errors raised by the store engines, each with a stable `code` callers can branch on.
import { ZodError } from 'zod';
import { firstIssue } from '../../protocol/input-issue.js';

/** The kinds of record a store holds; named in errors so an operator knows what to repair. */
export type RecordKind =
  | 'key'
  | 'task'
  | 'task-seq'
  | 'push-config'
  | 'meta'
  | 'event'
  | 'push-job'
  | 'connection'
  | 'connection-status'
  | 'result'
  | 'relay'
  | 'session'
  | 'key-usage'
  | 'delivery';

/**
 * A stored value failed to decode or to match its schema. Raised rather than answered as
 * "not found": a damaged record must be noticed, not silently treated as absent.
 */
export class StoreCorruptError extends Error {
  readonly code = 'ERR_STORE_CORRUPT';
  readonly record: RecordKind;
  readonly id: string;

  constructor(opts: { record: RecordKind; id: string; cause?: unknown }) {
    super(`stored ${opts.record} record ${JSON.stringify(opts.id)} is corrupt${whyCorrupt(opts.cause)}`, { cause: opts.cause });
    this.name = 'StoreCorruptError';
    this.record = opts.record;
    this.id = opts.id;
  }
}

/**
 * A fixed key of the Redis store holds another type than the store keeps there: most likely another program's data
 * under the same prefix, which the gateway must neither read as its own nor overwrite.
 */
export class StoreKeyTypeError extends Error {
  readonly code = 'ERR_STORE_KEY_TYPE';

  constructor(o: { key: string; found: string; want: string; holds: string }) {
    super(
      `redis key ${JSON.stringify(o.key)} holds a ${o.found} where the gateway keeps a ${o.want} (${o.holds}): is another program ` +
        'using this prefix? Give the gateway a prefix of its own (A2A_REDIS_PREFIX, config redisPrefix), or delete the key if it is a leftover',
    );
    this.name = 'StoreKeyTypeError';
  }
}

/**
 * A task write sent without its push configs' jobs (`withoutPushConfigs`: its writer had not read them) found the task
 * holding some: nothing was written. The writer reads the configs and writes again with their jobs.
 */
export class TaskHasPushConfigsError extends Error {
  readonly code = 'ERR_TASK_HAS_PUSH_CONFIGS';

  constructor(readonly taskKey: string) {
    super(`task ${taskKey} holds push configs its write did not read`);
    this.name = 'TaskHasPushConfigsError';
  }
}

/** What removing a record too damaged to read answers: it is removed all the same, since that is how one repairs it. */
export interface RemovedDamaged {
  workspace: string;
  name: string;
  damaged: true;
}

/** A read whose record may be stored but unreadable: 'damaged' then, rather than the error (a remove goes on). */
export async function readOrDamaged<T>(read: () => Promise<T>): Promise<T | 'damaged'> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof StoreCorruptError) return 'damaged';
    throw e;
  }
}

/** The first thing wrong with a record, said in one line (a schema's issue, never the stored value itself). */
function whyCorrupt(cause: unknown): string {
  if (cause instanceof ZodError) {
    const issue = firstIssue(cause);
    return ` (${issue.path.map(String).join('.') || 'record'}: ${issue.message})`;
  }
  return cause === undefined ? '' : ' (it does not decode)';
}

/**
 * Errors that mean "the store (or the bus) cannot be reached now", as opposed to a bad record or a bug: a command
 * timed out, the connection is down or being re-made. Named by class name so that no layer above needs the client.
 */
const UNAVAILABLE = new Set([
  'TimeoutError',
  'ConnectionTimeoutError',
  'SocketTimeoutError',
  'SocketClosedUnexpectedlyError',
  'ClientClosedError',
  'ClientOfflineError',
  'ReconnectStrategyError',
  'AbortError',
]);

export function isStoreUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (UNAVAILABLE.has(e.name) || UNAVAILABLE.has(e.constructor.name)) return true;
  const code = (e as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT';
}

/**
 * A write refused before it changed anything because one of its keys is longer than the engine allows (LMDB: 1,978
 * bytes). Caller-chosen ids are bounded well below that; this names the write that still got through.
 */
export class StoreKeyTooLongError extends Error {
  readonly code = 'ERR_STORE_KEY_TOO_LONG';
  readonly record: RecordKind;
  readonly bytes: number;

  constructor(opts: { record: RecordKind; bytes: number; limit: number }) {
    super(`${opts.record} write refused: a key of ${opts.bytes} bytes is over the store's limit of ${opts.limit}`);
    this.name = 'StoreKeyTooLongError';
    this.record = opts.record;
    this.bytes = opts.bytes;
  }
}

/**
 * A version-checked update (store/versioned.ts) found its record changed by another writer at every one of its
 * attempts: nothing was written. Only a record written without pause by others gets here; trying again later is safe.
 */
export class StoreConflictError extends Error {
  readonly code = 'ERR_STORE_CONFLICT';
  readonly record: RecordKind;
  readonly id: string;

  constructor(opts: { record: RecordKind; id: string; attempts: number }) {
    super(
      `stored ${opts.record} record ${JSON.stringify(opts.id)} was changed by others at each of ${opts.attempts} attempts to update it; nothing was written, try again`,
    );
    this.name = 'StoreConflictError';
    this.record = opts.record;
    this.id = opts.id;
  }
}
