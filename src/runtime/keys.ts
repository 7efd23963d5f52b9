// API keys: minting (`svc_a2a_` + 32 random bytes in base62), HMAC-SHA256 hashing under the server secret, verification.
import { createHmac } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyRecord } from '../protocol/records.js';
import type { Clock } from './clock.js';
import { randomBase62 } from './clock.js';
import type { Log } from './log.js';
import { SaidOnce } from './said-once.js';
import { StoreCorruptError } from './store/errors.js';
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

/** Stands for a header that is not `Bearer <one token>`: a presented guess, and no key is ever this (malformed). */
const NOT_BEARER = 'not-a-bearer-token';

/**
 * The key an Authorization header presents: the token of `Bearer <token>`, else NOT_BEARER. Not the header as it is:
 * a bare `svc_a2a_…` with no scheme would then read as a well-formed key and be accepted.
 */
export const presentedKey = (authorization: string | undefined): string | undefined =>
  authorization ? (/^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? NOT_BEARER) : undefined;

/** Well-formed means prefix plus base62 body; anything else is refused before any lookup. */
export function isWellFormedKey(key: string): boolean {
  return key.startsWith(KEY_PREFIX) && KEY_BODY.test(key.slice(KEY_PREFIX.length));
}

export type KeyCheck = { ok: true; key: KeyRecord } | { ok: false; why: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'damaged' };

/** Why a stored key may no longer act (revoked, past expires_at), or undefined while it may. */
export function keyLapsed(rec: KeyRecord, now: number): 'revoked' | 'expired' | undefined {
  if (rec.revokedAt !== null) return 'revoked';
  if (rec.expiresAt !== null && now >= rec.expiresAt) return 'expired';
  return undefined;
}

/**
 * The damaged key records already named, per log (one per gateway, shared by the A2A endpoint, the admin API and
 * the relay tunnel, which all check keys here): the one place every key check passes, with nothing to hand along.
 */
const saidPerLog = new WeakMap<Log, SaidOnce>();
function damagedSaid(log: Log): SaidOnce {
  let said = saidPerLog.get(log);
  if (!said) saidPerLog.set(log, (said = new SaidOnce()));
  return said;
}

/** Looks the key up by hash on every call: no positive cache, so a revocation holds on the very next request. */
export async function verifyKey(opts: {
  hasher: KeyHasher;
  keys: KeyStore;
  clock: Clock;
  presented: string | undefined;
  /** where a key record too damaged to read is named (its id, never its value) */
  log?: Log;
}): Promise<KeyCheck> {
  const { presented } = opts;
  if (!presented) return { ok: false, why: 'missing' };
  if (!isWellFormedKey(presented)) return { ok: false, why: 'malformed' };
  const hash = opts.hasher.hash(presented);
  let rec: KeyRecord | undefined;
  try {
    rec = await opts.keys.getByHash(hash);
  } catch (e) {
    // the key cannot be verified, which for its caller is a refusal (401), not the gateway's failure (-32603); the
    // operator is told which record to repair or revoke
    if (!(e instanceof StoreCorruptError)) throw e;
    // said once per key: a caller repeating the key would otherwise write a line per request
    if (opts.log && damagedSaid(opts.log).first(e.id))
      opts.log('API key refused: its stored record is damaged; repair or revoke it', { key: e.id, error: e.message });
    return { ok: false, why: 'damaged' };
  }
  // the store found the record by this very hash and returns it only when its hash is this one (KeyStore.getByHash):
  // comparing the two again, in constant time or not, would add nothing, as the index lookup is not constant-time anyway
  if (!rec) return { ok: false, why: 'unknown' };
  const lapsed = keyLapsed(rec, opts.clock.now());
  if (lapsed) return { ok: false, why: lapsed };
  return { ok: true, key: rec };
}

/** Reads the server secret: A2A_SECRET if given, else `<dataDir>/secret` (created on first start, mode 0600). */
export async function loadSecret(opts: { dataDir: string; fromEnv?: string }): Promise<Buffer> {
  if (opts.fromEnv) return Buffer.from(opts.fromEnv, 'utf8');
  const file = join(opts.dataDir, 'secret');
  const existing = await readSecretFile(file);
  if (existing) return existing;
  await mkdir(opts.dataDir, { recursive: true });
  // Written whole to a private temp file, then linked into place: a CLI and a server starting together agree on one
  // secret, and no process ever reads a secret file that another is still writing (an empty read would hash keys
  // under an empty secret).
  const tmp = join(opts.dataDir, `.secret.${process.pid}.${randomBase62(8)}`);
  const encoded = Buffer.from(randomBase62(48), 'utf8').toString('base64url');
  try {
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(`${encoded}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await link(tmp, file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  const made = await readSecretFile(file);
  if (!made) throw new SecretFileError(file);
  return made;
}

/** A secret file too short to be one we wrote (emptied, truncated) is refused, never used as a weak secret. */
export class SecretFileError extends Error {
  override readonly name = 'SecretFileError';
  constructor(readonly file: string) {
    super(`${file}: the server secret file is empty or damaged; restore it from a backup (keys and stored credentials depend on it)`);
  }
}

const MIN_SECRET_BYTES = 32;

async function readSecretFile(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const secret = Buffer.from(text.trim(), 'base64url');
  if (secret.length < MIN_SECRET_BYTES) throw new SecretFileError(file);
  return secret;
}
