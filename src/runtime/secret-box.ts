// Sealing secrets at rest: a JSON value encrypted with AES-256-GCM under a key derived from the server secret.
//
// The key is HKDF-SHA256(server secret, info naming the purpose), so one server secret yields unrelated keys for
// unrelated uses, and a value sealed for one purpose never opens as another's. A sealed value is the base64 of
// version (1 byte) | IV (12 random bytes) | GCM tag (16 bytes) | ciphertext. The version byte, the purpose and the
// caller's `context` (e.g. the record's id) are authenticated data: a sealed value moved to another record, or any
// byte changed, fails to open with a SecretBoxError rather than yielding garbage.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What a box's key is for; each purpose derives its own key. */
export type SealPurpose = 'connection-credentials' | 'webhook-signing-secret' | 'push-config-credentials';

export type SecretBoxErrorCode =
  /** not a sealed value at all: not base64, too short, or an unknown version */
  | 'ERR_SEALED_MALFORMED'
  /** the value does not authenticate: another server secret, another record, or changed bytes */
  | 'ERR_SEALED_UNOPENABLE';

export class SecretBoxError extends Error {
  constructor(
    readonly code: SecretBoxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export interface SecretBox {
  /** seals a JSON value; `context` binds it to one record (the same context must be given to open it) */
  seal(value: unknown, o: { context: string }): string;
  /** the JSON value sealed under this purpose, server secret and context; a SecretBoxError otherwise */
  open(sealed: string, o: { context: string }): unknown;
}

export function secretBox(o: { secret: Buffer; purpose: SealPurpose }): SecretBox {
  if (o.secret.length === 0) throw new Error('secretBox: the server secret is empty');
  const info = `a2a-gateway secret-box v${VERSION}: ${o.purpose}`;
  const key = Buffer.from(hkdfSync('sha256', o.secret, Buffer.alloc(0), info, 32));
  const aad = (context: string) => Buffer.concat([Buffer.from([VERSION]), Buffer.from(`${o.purpose}\0${context}`, 'utf8')]);

  return {
    seal(value, { context }) {
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError('secretBox.seal: the value is not JSON');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, { context }) {
      if (!BASE64.test(sealed)) throw new SecretBoxError('ERR_SEALED_MALFORMED', 'sealed value is not base64');
      const bytes = Buffer.from(sealed, 'base64');
      if (bytes.length < HEADER_BYTES + 1) throw new SecretBoxError('ERR_SEALED_MALFORMED', 'sealed value is too short');
      if (bytes[0] !== VERSION) throw new SecretBoxError('ERR_SEALED_MALFORMED', `sealed value has unknown version ${bytes[0]}`);
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const tag = bytes.subarray(1 + IV_BYTES, HEADER_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(context));
      decipher.setAuthTag(tag);
      let json: string;
      try {
        json = Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(
          'ERR_SEALED_UNOPENABLE',
          'sealed value does not open: it was sealed with another server secret or for another record, or it was changed',
        );
      }
      // authenticated, so it is what seal wrote: JSON
      return JSON.parse(json);
    },
  };
}
