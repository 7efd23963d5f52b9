// The LMDB task events: `events` ([taskKey, firstSeq] -> one append's events), replayed after a seq, trimmed per task.
import type { Database, Key, RootDatabase } from 'lmdb';
import { TaskEvent } from '../../../protocol/events.js';
import type { EventStore } from '../types.js';
import { checked } from '../validate.js';
import { getDecoded, rangeDecoded } from './decoded.js';

export interface LmdbEventStoreOptions {
  root: RootDatabase;
  /** [taskKey, firstSeq] -> TaskEvent or TaskEvent[] */
  db: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

export function lmdbEventStore(o: LmdbEventStoreOptions): EventStore {
  const { root, db: events, fresh } = o;
  return {
    async append(key, list, retain) {
      if (list.length === 0) return;
      await root.transaction(() => putEvents(events, key, list, retain));
    },
    async after(key, after) {
      fresh();
      const out: TaskEvent[] = [];
      // the value holding seq after+1 may start before it: begin at the last value whose first seq is <= after+1
      let start: Key = [key, after + 1];
      for (const k of events.getKeys({ start: [key, after + 1], end: [key, 0], reverse: true, limit: 1 })) start = k;
      for (const { value } of rangeDecoded({ db: events, range: { start, end: [key, Number.MAX_SAFE_INTEGER] }, record: 'event', idOf: eventId })) {
        for (const v of eventsIn(value)) {
          const ev = checked({ schema: TaskEvent, value: v, record: 'event', id: key });
          if (ev.seq > after) out.push(ev);
        }
      }
      return out;
    },
  };
}

/**
 * Most events one stored value holds. A longer list is stored as several values, so that a trim whose cut falls inside
 * a value (which rewrites that value's newer events) rewrites at most this many: one value of a long burst rewritten
 * on every later write made a stream past its retention cost O(burst) per write.
 */
const MAX_EVENTS_PER_VALUE = 32;

/**
 * Inside a write transaction (an append, or a task write carrying its events): stores a non-empty list of one task's
 * events as few values (one B-tree write per MAX_EVENTS_PER_VALUE events instead of one per event) and keeps the last
 * `retain` (all when undefined). Events already past the retention are not written at all.
 */
export function putEvents(events: Database<unknown, Key>, key: string, list: readonly TaskEvent[], retain: number | undefined): void {
  const cut = list[list.length - 1]!.seq - (retain ?? Number.MAX_SAFE_INTEGER);
  const kept = cut > 0 && list[0]!.seq <= cut ? list.filter((e) => e.seq > cut) : list;
  for (let i = 0; i < kept.length; i += MAX_EVENTS_PER_VALUE) {
    const part = kept.length <= MAX_EVENTS_PER_VALUE ? kept : kept.slice(i, i + MAX_EVENTS_PER_VALUE);
    events.put([key, part[0]!.seq], part.length === 1 ? part[0] : part);
  }
  if (cut > 0) trimEvents(events, key, cut);
}

/** Inside a write transaction: drops every event of one task (retention). */
export function dropEvents(events: Database<unknown, Key>, key: string): void {
  for (const e of events.getKeys({ start: [key, 0], end: [key, Number.MAX_SAFE_INTEGER] })) events.remove(e);
}

/** An events value's id in errors: its task and first seq. */
const eventId = (k: Key): string => (Array.isArray(k) ? k.join('#') : String(k));

/** A stored events value: one event, or the events of one append in seq order. */
const eventsIn = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * Inside a write transaction: drops a task's events with seq <= cut; a value that straddles the cut keeps its newer
 * events. Only that value is read: every value before the last one starting at or below the cut ends before the next
 * one starts, so it lies wholly at or below the cut and goes by its key. The straddling value is decoded before
 * anything is removed, so a damaged one fails the write before it changes anything here.
 */
function trimEvents(events: Database<unknown, Key>, key: string, cut: number): void {
  const old = [...events.getKeys({ start: [key, 0], end: [key, cut + 1] })];
  const last = old.pop();
  if (last === undefined) return;
  const kept = eventsIn(getDecoded({ db: events, key: last, record: 'event', id: eventId(last) })).filter((v) => seqOf(v) > cut);
  for (const k of old) events.remove(k);
  events.remove(last);
  if (kept.length > 0) events.put([key, seqOf(kept[0])], kept.length === 1 ? kept[0] : kept);
}

const seqOf = (v: unknown): number => (typeof v === 'object' && v !== null && 'seq' in v && typeof v.seq === 'number' ? v.seq : 0);
