// Shared test setup for the limiter suites: where Redis is, a prefix of our own, and cleaning up under it.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { limiterKeyPattern } from '../../src/runtime/redis/keys.js';

// test/support/redis.ts does not exist yet; when it does, take REDIS_URL and testPrefix from there
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const uniquePrefix = (): string => `a2a-test:limiter:${process.pid}-${randomBytes(4).toString('hex')}:`;

export const T0 = Date.UTC(2026, 0, 1);

export async function adminClient() {
  const c = createClient({ url: REDIS_URL });
  c.on('error', () => {});
  await c.connect();
  return c;
}

export async function deleteUnder(prefix: string): Promise<number> {
  const c = await adminClient();
  let n = 0;
  try {
    for await (const batch of c.scanIterator({ MATCH: limiterKeyPattern(prefix), COUNT: 200 })) {
      if (batch.length > 0) n += await c.del(batch);
    }
  } finally {
    await c.close();
  }
  return n;
}
