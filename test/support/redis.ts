// Where the tests' Redis is, a key prefix of their own per run, and removing everything under it afterwards.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Unique per test run, so parallel test files and earlier crashed runs never see each other's keys. */
export function testPrefix(name: string): string {
  return `a2a-test:${name}:${process.pid}-${randomBytes(4).toString('hex')}:`;
}

/** Glob metacharacters in a prefix must match themselves in SCAN MATCH. */
const escapeGlob = (s: string): string => s.replace(/[\\*?[\]]/g, '\\$&');

/** Deletes every key under `prefix` (SCAN + UNLINK); returns how many went. */
export async function cleanupPrefix(url: string, prefix: string): Promise<number> {
  // An empty prefix would match the whole database.
  if (prefix === '') throw new Error('cleanupPrefix: refusing an empty prefix');
  const c = createClient({ url });
  c.on('error', () => {});
  await c.connect();
  let n = 0;
  try {
    for await (const batch of c.scanIterator({ MATCH: `${escapeGlob(prefix)}*`, COUNT: 500 })) {
      if (batch.length > 0) n += await c.unlink(batch);
    }
  } finally {
    await c.close();
  }
  return n;
}
