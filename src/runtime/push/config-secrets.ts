// A push config's credentials at rest: its `token` and `authentication.credentials` are what the gateway presents to
// the caller's webhook receiver, so the store keeps them sealed under the server secret (secret-box.ts, bound to the
// config's task and id), as it keeps connection credentials and webhook signing secrets. A config stored before this
// (no `sealed` mark) is used as it is.
import type { StoredPushConfig } from '../../protocol/records.js';
import { secretBox, type SecretBox } from '../secret-box.js';

export interface PushConfigSeal {
  /** the record to store: its secrets sealed, marked `sealed` */
  seal(rec: StoredPushConfig): StoredPushConfig;
  /** the record as the worker presents it: its secrets opened (a SecretBoxError when they do not open) */
  open(rec: StoredPushConfig): StoredPushConfig;
}

const contextOf = (rec: StoredPushConfig) => `${rec.taskId}\0${rec.id}`;

export function pushConfigSeal(o: { secret: Buffer }): PushConfigSeal {
  const box: SecretBox = secretBox({ secret: o.secret, purpose: 'push-config-credentials' });
  const map = (rec: StoredPushConfig, f: (v: string) => string): StoredPushConfig => ({
    ...rec,
    ...(rec.token !== undefined && { token: f(rec.token) }),
    ...(rec.authentication?.credentials !== undefined && { authentication: { ...rec.authentication, credentials: f(rec.authentication.credentials) } }),
  });
  return {
    seal(rec) {
      if (rec.sealed) return rec;
      const context = contextOf(rec);
      return { ...map(rec, (v) => box.seal(v, { context })), sealed: true };
    },
    open(rec) {
      if (!rec.sealed) return rec;
      const context = contextOf(rec);
      const { sealed: _, ...plain } = map(rec, (v) => {
        const opened = box.open(v, { context });
        if (typeof opened !== 'string') throw new TypeError('a sealed push credential is not a string');
        return opened;
      });
      return plain;
    },
  };
}
