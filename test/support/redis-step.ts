// Test support: a TCP forwarder in front of Redis that, once told to hold, keeps each chunk a client sends and passes
// them on one at a time when the test says so. A test makes Redis answer a connection's queued commands one by one,
// as a busy Redis working through a burst would, at points it chooses.
import { connect, createServer, type Socket } from 'node:net';

export interface RedisStep {
  /** redis://127.0.0.1:<port> of the forwarder */
  url: string;
  /** from now on client chunks wait until `release` */
  hold(): void;
  /** how many client chunks wait */
  waiting(): number;
  /** passes the oldest waiting chunk on to Redis */
  release(): void;
  /** passes every waiting chunk on and stops holding */
  flow(): void;
  close(): Promise<void>;
}

export async function startRedisStep(o: { redisUrl: string }): Promise<RedisStep> {
  const target = new URL(o.redisUrl);
  const open = new Set<Socket>();
  const queue: Array<{ to: Socket; chunk: Buffer }> = [];
  let held = false;
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => (held ? queue.push({ to: upstream, chunk }) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
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
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
