// Test support: a TCP forwarder in front of Redis that can stop a gateway's store traffic at an exact point: once a
// command matching `holdAfter` has gone through and Redis has answered it, nothing more from any client reaches Redis.
// A test then kills the gateway there, between that write and whatever it would have written next.
import { connect, createServer, type Socket } from 'node:net';

export interface RedisGate {
  /** redis://127.0.0.1:<port> of the forwarder */
  url: string;
  /** holds all later client bytes after the first client chunk `match` accepts; resolves once Redis answered that chunk */
  holdAfter(match: (chunk: Buffer) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisGate(o: { redisPort: number }): Promise<RedisGate> {
  const open = new Set<Socket>();
  let match: ((chunk: Buffer) => boolean) | undefined;
  let held = false;
  let answered: (() => void) | undefined;
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: o.redisPort });
    let awaitingAnswer = false;
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (held) return;
      if (match?.(chunk)) {
        held = true;
        awaitingAnswer = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (awaitingAnswer) {
        awaitingAnswer = false;
        answered?.();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    holdAfter(m) {
      match = m;
      return new Promise<void>((resolve) => {
        answered = resolve;
      });
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
