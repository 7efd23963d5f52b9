// What every Redis sub-store is handed: the connection (plain and binary replies), the key names and the script runner.
import { RESP_TYPES } from 'redis';
import type { connectRedis } from '../../redis/connect.js';
import type { RedisKeys } from '../../redis/keys.js';
import type { RunScript } from './scripts.js';
import type { OnCorrupt } from '../validate.js';

export type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** The same connection answering bulk strings as Buffers (the packed values). */
export const binary = (client: RedisClient) => client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
export type BinaryClient = ReturnType<typeof binary>;

export interface RedisParts {
  client: RedisClient;
  bin: BinaryClient;
  keys: RedisKeys;
  run: RunScript;
  /** where listings report the damaged records they leave out (none: a damaged record fails the listing) */
  onCorrupt?: OnCorrupt;
}

/** A hash's fields with their values (rather than HVALS) so that a corrupt entry can be named by its id. */
export async function entries(bin: BinaryClient, key: string): Promise<Array<[string, Buffer]>> {
  return Object.entries(await bin.hGetAll(key));
}
