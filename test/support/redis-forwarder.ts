// Test support: the TCP forwarder in front of Redis that redis-step and redis-gate build on: each client connection
// gets its own connection to Redis, answers pass straight back, and the caller decides what becomes of each client
// chunk (the step queues them, the gate drops them past a point).
import { connect, createServer, type Socket } from 'node:net';

/** What one client connection does with its traffic: `fromClient` forwards a chunk by writing it to `upstream` (or not). */
export interface ForwardedConnection {
  fromClient(chunk: Buffer): void;
  /** after an answer chunk from Redis was passed back to the client */
  fromRedis?(): void;
}

export interface RedisForwarder {
  /** redis://127.0.0.1:<port> of the forwarder */
  url: string;
  close(): Promise<void>;
}

export async function startRedisForwarder(o: { redisUrl: string; connection: (upstream: Socket) => ForwardedConnection }): Promise<RedisForwarder> {
  const target = new URL(o.redisUrl);
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    const conn = o.connection(upstream);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => conn.fromClient(chunk));
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      conn.fromRedis?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
