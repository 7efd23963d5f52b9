// The LMDB dashboard state: `dashboard-sessions` (id -> DashboardSession) with `dashboard-session-expiry`
// ([expiresAt, id] -> true) swept a bounded batch at a time on each new session; `dashboard-key-used` (key id -> ms);
// `dashboard-deliveries` (workspace -> DeliveryRecord[], newest first, bounded).
import type { Database, Key, RootDatabase } from 'lmdb';
import { z } from 'zod';
import { DashboardSession, DeliveryRecord, KeyLastUsed } from '../../../protocol/dashboard.js';
import type { DashboardStore } from '../types.js';
import { checked } from '../validate.js';
import { AFTER_ANY_STRING } from './ranges.js';

export interface LmdbDashboardStoreOptions {
  root: RootDatabase;
  /** id -> DashboardSession */
  sessions: Database<unknown, Key>;
  /** [expiresAt, id] -> true */
  sessionExpiry: Database<true, Key>;
  /** key id -> last use (ms) */
  keyUsed: Database<unknown, Key>;
  /** workspace -> DeliveryRecord[] */
  deliveries: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

/** Expired sessions removed per new session: a sign-in never pays for a long backlog, and sign-ins outpace expiries. */
const SWEEP_BATCH = 20;

const DeliveryList = z.array(DeliveryRecord);

export function lmdbDashboardStore(o: LmdbDashboardStoreOptions): DashboardStore {
  const { root, sessions, sessionExpiry, keyUsed, deliveries, fresh } = o;
  const readSession = (value: unknown, id: string) => checked({ schema: DashboardSession, value, record: 'session', id });
  /** the stored session's expiry, if a record (even a damaged one) is there: its index entry goes with it */
  const storedExpiry = (id: string): number | undefined => {
    const prev = sessions.get(id);
    const at = typeof prev === 'object' && prev !== null && 'expiresAt' in prev ? prev.expiresAt : undefined;
    return typeof at === 'number' ? at : undefined;
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
      const v = sessions.get(id);
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
          const old = keyUsed.get(id);
          if (typeof old !== 'number' || old < at) keyUsed.put(id, at);
        }
      });
    },
    async keysLastUsed(keyIds) {
      fresh();
      const out = new Map<string, number>();
      for (const id of keyIds) {
        const v = keyUsed.get(id);
        if (v !== undefined) out.set(id, checked({ schema: KeyLastUsed, value: v, record: 'key-usage', id }));
      }
      return out;
    },
    async recordDelivery(workspace, d, { keep }) {
      await root.transaction(() => {
        const prev = deliveries.get(workspace);
        // a damaged list is replaced rather than kept failing every later delivery's record
        const list = DeliveryList.safeParse(prev).data ?? [];
        deliveries.put(workspace, [d, ...list].slice(0, keep));
      });
    },
    async deliveries(workspace) {
      fresh();
      const v = deliveries.get(workspace);
      return v === undefined ? [] : checked({ schema: DeliveryList, value: v, record: 'delivery', id: workspace });
    },
  };
}
