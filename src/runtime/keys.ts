// API keys: minting (`svc_a2a_` + 32 random bytes in base62), HMAC-SHA256 hashing under the server secret, verification.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyRecord } from '../protocol/records.js';
import type { Clock } from './clock.js';
import { randomBase62 } from './clock.js';
import type { KeyStore } from './store/types.js';

export const KEY_PREFIX = 'svc_a2a_';
const KEY_BODY = /^[0-9A-Za-z]{43,128}$/;

export const mintKey = (): string => KEY_PREFIX + randomBase62(32);

export function hashKey(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key).digest('base64url');
}

/**
 * Remembers the HMAC of recently presented keys. This is not an authentication cache: the record is still
 * looked up by hash on every request, so a revocation holds at once; it only spares recomputing a pure
 * function of (secret, key). Bounded, oldest dropped first.
 */
export class KeyHasher {
  private readonly memo = new Map<string, string>();
  constructor(private readonly o: { secret: Buffer; max?: number }) {}

  hash(key: string): string {
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const h = hashKey(this.o.secret, key);
    if (this.memo.size >= (this.o.max ?? 10_000)) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(key, h);
    return h;
  }
}

/** Well-formed means prefix plus base62 body; anything else is refused before any lookup. */
export function isWellFormedKey(key: string): boolean {
  return key.startsWith(KEY_PREFIX) && KEY_BODY.test(key.slice(KEY_PREFIX.length));
}

export type KeyCheck = { ok: true; key: KeyRecord } | { ok: false; why: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' };

/** Looks the key up by hash on every call: no positive cache, so a revocation holds on the very next request. */
/** Why a stored key may no longer act (revoked, past expires_at), or undefined while it may. */
export function keyLapsed(rec: KeyRecord, now: number): 'revoked' | 'expired' | undefined {
  if (rec.revokedAt !== null) return 'revoked';
  if (rec.expiresAt !== null && now >= rec.expiresAt) return 'expired';
  return undefined;
}

export async function verifyKey(opts: { hasher: KeyHasher; keys: KeyStore; clock: Clock; presented: string | undefined }): Promise<KeyCheck> {
  const { presented } = opts;
  if (!presented) return { ok: false, why: 'missing' };
  if (!isWellFormedKey(presented)) return { ok: false, why: 'malformed' };
  const hash = opts.hasher.hash(presented);
  const rec = await opts.keys.getByHash(hash);
  if (!rec) return { ok: false, why: 'unknown' };
  const a = Buffer.from(rec.hash);
  const b = Buffer.from(hash);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, why: 'unknown' };
  const lapsed = keyLapsed(rec, opts.clock.now());
  if (lapsed) return { ok: false, why: lapsed };
  return { ok: true, key: rec };
}

/** Reads the server secret: A2A_SECRET if given, else `<dataDir>/secret` (created on first start, mode 0600). */
export async function loadSecret(opts: { dataDir: string; fromEnv?: string }): Promise<Buffer> {
  if (opts.fromEnv) return Buffer.from(opts.fromEnv, 'utf8');
  const file = join(opts.dataDir, 'secret');
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await mkdir(opts.dataDir, { recursive: true });
  const secret = randomBase62(48);
  const encoded = Buffer.from(secret, 'utf8').toString('base64url');
  try {
    // 'wx' so that a CLI and a server starting together agree on one secret
    await writeFile(file, `${encoded}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  await chmod(file, 0o600);
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
}
