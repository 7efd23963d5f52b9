// Test support: a TCP forwarder in front of Redis that, once told to hold, keeps each chunk a client sends and passes
// them on one at a time when the test says so. A test makes Redis answer a connection's queued commands one by one,
// as a busy Redis working through a burst would, at points it chooses.
import type { Socket } from 'node:net';
import { startRedisForwarder, type RedisForwarder } from './redis-forwarder.js';

export interface RedisStep extends RedisForwarder {
  /** from now on client chunks wait until `release` */
  hold(): void;
  /** how many client chunks wait */
  waiting(): number;
  /** passes the oldest waiting chunk on to Redis */
  release(): void;
  /** passes every waiting chunk on and stops holding */
  flow(): void;
}

export async function startRedisStep(o: { redisUrl: string }): Promise<RedisStep> {
  const queue: Array<{ to: Socket; chunk: Buffer }> = [];
  let held = false;
  const forwarder = await startRedisForwarder({
    redisUrl: o.redisUrl,
    connection: (upstream) => ({
      fromClient: (chunk) => (held ? queue.push({ to: upstream, chunk }) : upstream.write(chunk)),
    }),
  });
  return {
    ...forwarder,
    hold: () => {
      held = true;
    },
    waiting: () => queue.length,
    release: () => {
      const next = queue.shift();
      if (!next) throw new Error('no chunk waits');
      next.to.write(next.chunk);
    },
    flow: () => {
      held = false;
      for (const { to, chunk } of queue.splice(0)) to.write(chunk);
    },
  };
}
