// Standard Webhooks signing: `whsec_` secrets, and the webhook-id / webhook-timestamp / webhook-signature headers.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** The shape of a signing secret: the prefix, then the base64 of the HMAC key. */
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A fresh secret: 32 random bytes (the HMAC-SHA256 block size's worth of key is more than enough). */
export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');

/** The HMAC key a secret stands for: the base64-decoded part after `whsec_`. */
export function signingKey(secret: string): Buffer {
  if (!SECRET_PATTERN.test(secret)) throw new Error('a webhook signing secret must look like whsec_<base64>');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; `timestamp` is in seconds. */
export function sign(o: { secret: string; id: string; timestamp: number; body: string }): string {
  const mac = createHmac('sha256', signingKey(o.secret)).update(`${o.id}.${o.timestamp}.${o.body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt (the id stays the same across retries, the timestamp does not). */
export function webhookHeaders(o: { secret: string; id: string; timestamp: number; body: string }): Record<string, string> {
  return {
    'webhook-id': o.id,
    'webhook-timestamp': String(o.timestamp),
    'webhook-signature': sign(o),
  };
}
