// The LMDB dashboard state: `dashboard-sessions` (id -> DashboardSession) with `dashboard-session-expiry`
// ([expiresAt, id] -> true) swept a bounded batch at a time on each new session; `dashboard-key-used` (key id -> ms);
// `dashboard-delivery-log` ([workspace, seq] -> DeliveryRecord, one record per attempt, the last `keep` kept), which
// replaced `dashboard-deliveries` (workspace -> DeliveryRecord[]): that list was read, decoded and written whole on
// every attempt, where an append now writes one record and drops the one that fell out.
import type { Database, Key, RootDatabase } from 'lmdb';
import { z } from 'zod';
import { DashboardSession, DeliveryRecord, KeyLastUsed } from '../../../protocol/dashboard.js';
import type { DashboardStore } from '../types.js';
import { checked, listed, replacing, type OnCorrupt } from '../validate.js';
import { getDecoded, rangeDecoded } from './decoded.js';
import { AFTER_ANY_STRING } from './ranges.js';

export interface LmdbDashboardStoreOptions {
  root: RootDatabase;
  /** id -> DashboardSession */
  sessions: Database<unknown, Key>;
  /** [expiresAt, id] -> true */
  sessionExpiry: Database<true, Key>;
  /** key id -> last use (ms) */
  keyUsed: Database<unknown, Key>;
  /** [workspace, seq] -> DeliveryRecord; seqs run on from 1 without gaps, the newest highest */
  deliveryLog: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
  /** told of a damaged record a write replaces or a read of several leaves out (none: such a read fails) */
  onCorrupt?: OnCorrupt;
}

/** Expired sessions removed per new session: a sign-in never pays for a long backlog, and sign-ins outpace expiries. */
const SWEEP_BATCH = 20;

const DeliveryList = z.array(DeliveryRecord);

/** Inside a write transaction: the seq of a workspace's newest delivery record (0: none). */
function lastDeliverySeq(log: Database<unknown, Key>, workspace: string): number {
  for (const k of log.getKeys({ start: [workspace, Number.MAX_SAFE_INTEGER], end: [workspace, 0], reverse: true, limit: 1 })) {
    const seq = Array.isArray(k) ? k[1] : undefined;
    if (typeof seq === 'number') return seq;
  }
  return 0;
}

/** Inside a write transaction: appends one delivery record and drops those past the newest `keep`. */
function appendDelivery(log: Database<unknown, Key>, workspace: string, d: DeliveryRecord, keep: number): void {
  const seq = lastDeliverySeq(log, workspace) + 1;
  log.put([workspace, seq], d);
  // seqs have no gaps, so this is the one record that fell out (more only if `keep` was lowered)
  for (const k of log.getKeys({ start: [workspace, 0], end: [workspace, seq - keep + 1] })) log.remove(k);
}

/**
 * Moves what an older version kept in `dashboard-deliveries` (a list per workspace, newest first) into the log, once:
 * the lists are emptied as they are moved, so a later open finds nothing to do. A damaged list is dropped, as the older
 * version itself replaced one at its next delivery.
 */
export async function upgradeDeliveryLists(o: {
  root: RootDatabase;
  lists: Database<unknown, Key>;
  deliveryLog: Database<unknown, Key>;
  /** told of a list whose bytes do not decode (dropped all the same) */
  onCorrupt?: OnCorrupt;
}): Promise<void> {
  const { root, lists, deliveryLog } = o;
  if (lists.getKeysCount({ limit: 1 }) === 0) return;
  await root.transaction(() => {
    // read whole before any removal: no cursor runs over what the loop changes. Bytes that do not decode are a
    // damaged list too (a raw range read threw msgpackr's error here, and the store, so the gateway, did not open)
    const entries: Array<{ key: Key; value: unknown }> = [];
    for (const e of rangeDecoded({ db: lists, range: {}, record: 'delivery', idOf: String })) {
      entries.push({ key: e.key, value: replacing(o.onCorrupt, () => e.value) });
    }
    for (const { key, value } of entries) {
      lists.remove(key);
      const list = DeliveryList.safeParse(value).data;
      if (typeof key !== 'string' || !list) continue;
      // oldest first, so each lands above the one before it
      for (const d of [...list].reverse()) appendDelivery(deliveryLog, key, d, list.length);
    }
  });
}

export function lmdbDashboardStore(o: LmdbDashboardStoreOptions): DashboardStore {
  const { root, sessions, sessionExpiry, keyUsed, deliveryLog, fresh, onCorrupt } = o;
  const readSession = (value: unknown, id: string) => checked({ schema: DashboardSession, value, record: 'session', id });
  /** the stored session's expiry, if a record (even a damaged one) is there: its index entry goes with it */
  const storedExpiry = (id: string): number | undefined => {
    // bytes that do not decode hold no expiry to find: the put or delete replaces them all the same
    const prev = replacing(onCorrupt, () => getDecoded({ db: sessions, key: id, record: 'session', id }));
    const at = typeof prev === 'object' && prev !== null && 'expiresAt' in prev ? prev.expiresAt : undefined;
    return typeof at === 'number' ? at : undefined;
  };
  /** a key's stored last use; a value that does not decode or is not a time is a StoreCorruptError naming the key */
  const readUsed = (id: string): number | undefined => {
    const v = getDecoded({ db: keyUsed, key: id, record: 'key-usage', id });
    return v === undefined ? undefined : checked({ schema: KeyLastUsed, value: v, record: 'key-usage', id });
  };
  return {
    async putSession(s, { now }) {
      await root.transaction(() => {
        // every index entry at or before `now`: [now, <any string>] is below [now, AFTER_ANY_STRING]
        for (const k of sessionExpiry.getKeys({ end: [now, AFTER_ANY_STRING], limit: SWEEP_BATCH })) {
          sessionExpiry.remove(k);
          const id = Array.isArray(k) ? k[1] : undefined;
          if (typeof id === 'string') sessions.remove(id);
        }
        const prevAt = storedExpiry(s.id);
        if (prevAt !== undefined && prevAt !== s.expiresAt) sessionExpiry.remove([prevAt, s.id]);
        sessions.put(s.id, s);
        sessionExpiry.put([s.expiresAt, s.id], true);
      });
    },
    async getSession(id) {
      fresh();
      const v = getDecoded({ db: sessions, key: id, record: 'session', id });
      return v === undefined ? undefined : readSession(v, id);
    },
    async deleteSession(id) {
      await root.transaction(() => {
        const at = storedExpiry(id);
        if (at !== undefined) sessionExpiry.remove([at, id]);
        sessions.remove(id);
      });
    },
    async markKeysUsed(used) {
      if (used.length === 0) return;
      await root.transaction(() => {
        for (const [id, at] of used) {
          // a damaged time is replaced, not kept: failing here failed every key's flush, again at every flush
          const old = replacing(onCorrupt, () => readUsed(id));
          if (old === undefined || old < at) keyUsed.put(id, at);
        }
      });
    },
    async keysLastUsed(keyIds) {
      fresh();
      const out = new Map<string, number>();
      for (const id of keyIds) {
        // one damaged time (with onCorrupt) is left out: the keys page still lists every key
        const at = listed(onCorrupt, () => readUsed(id));
        if (at !== undefined) out.set(id, at);
      }
      return out;
    },
    async recordDelivery(workspace, d, { keep }) {
      // no earlier record is read or decoded: an attempt costs the same with 1 or `keep` recorded
      await root.transaction(() => appendDelivery(deliveryLog, workspace, d, keep));
    },
    async deliveries(workspace) {
      fresh();
      const out: DeliveryRecord[] = [];
      const range = { start: [workspace, Number.MAX_SAFE_INTEGER], end: [workspace, 0], reverse: true };
      const idOf = (key: Key) => `${workspace}#${String(Array.isArray(key) ? key[1] : key)}`;
      for (const { key, value } of rangeDecoded({ db: deliveryLog, range, record: 'delivery', idOf })) {
        out.push(checked({ schema: DeliveryRecord, value, record: 'delivery', id: idOf(key) }));
      }
      return out;
    },
  };
}
