// Test support: a TCP forwarder in front of Redis that can stop a gateway's store traffic at an exact point: once a
// command matching `holdAfter` has gone through and Redis has answered it, nothing more from any client reaches Redis.
// A test then kills the gateway there, between that write and whatever it would have written next.
import { startRedisForwarder, type RedisForwarder } from './redis-forwarder.js';

export interface RedisGate extends RedisForwarder {
  /** holds all later client bytes after the first client chunk `match` accepts; resolves once Redis answered that chunk */
  holdAfter(match: (chunk: Buffer) => boolean): Promise<void>;
}

export async function startRedisGate(o: { redisPort: number }): Promise<RedisGate> {
  let match: ((chunk: Buffer) => boolean) | undefined;
  let held = false;
  let answered: (() => void) | undefined;
  const forwarder = await startRedisForwarder({
    redisUrl: `redis://127.0.0.1:${o.redisPort}`,
    connection: (upstream) => {
      // this connection sent the matching chunk, whose answer is still to come
      let awaitingAnswer = false;
      return {
        fromClient(chunk) {
          if (held) return;
          if (match?.(chunk)) {
            held = true;
            awaitingAnswer = true;
          }
          upstream.write(chunk);
        },
        fromRedis() {
          if (awaitingAnswer) {
            awaitingAnswer = false;
            answered?.();
          }
        },
      };
    },
  });
  return {
    ...forwarder,
    holdAfter(m) {
      match = m;
      return new Promise<void>((resolve) => {
        answered = resolve;
      });
    },
  };
}
