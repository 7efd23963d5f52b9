// How every Redis connection of the gateway is made (store, bus, limiter), so that all of them ride out an outage
// alike: a command timeout, no offline queue, reconnection forever once connected, and errors that reach a log.
import { createClient, type RedisClientOptions } from 'redis';

export interface RedisConnectSettings {
  url: string;
  /** shows in CLIENT LIST */
  name: string;
  /** a command unanswered this long fails (a stalled Redis must not hold a request for the whole stall) */
  commandTimeoutMs: number;
  /**
   * false: a command waiting to be written (the socket full while Redis works through a burst) is not timed out here;
   * the caller's own deadline decides (the store's connectionDeadline fails calls only when Redis answers nothing)
   */
  timeoutUnwritten?: boolean;
  /** keep commands issued while disconnected until the connection is back (pub/sub subscriptions need it) */
  offlineQueue?: boolean;
}

/**
 * Options for createClient. A first connect that fails rejects (a CLI or a start-up must not hang on a wrong URL);
 * a connection that once worked is retried with capped backoff for as long as it takes.
 */
export function redisOptions(s: RedisConnectSettings, state: { connectedOnce: boolean }): RedisClientOptions {
  return {
    url: s.url,
    name: s.name,
    disableOfflineQueue: !s.offlineQueue,
    ...(s.timeoutUnwritten === false ? {} : { commandOptions: { timeout: s.commandTimeoutMs } }),
    socket: {
      connectTimeout: Math.max(s.commandTimeoutMs, 1_000),
      reconnectStrategy: (retries: number, cause: Error) => (state.connectedOnce ? Math.min(50 * 2 ** retries, 2_000) : cause),
    },
  };
}

/** A connected client with those options and an 'error' listener (without one, a dropped socket ends the process). */
export async function connectRedis(s: RedisConnectSettings & { onError?: (e: Error) => void }) {
  const state = { connectedOnce: false };
  const client = createClient(redisOptions(s, state));
  client.on('error', (e: Error) => s.onError?.(e));
  try {
    await client.connect();
  } catch (e) {
    client.destroy();
    throw e;
  }
  state.connectedOnce = true;
  return client;
}
