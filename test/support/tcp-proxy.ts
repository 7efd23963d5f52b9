// Test support: a TCP forwarder on a fixed loopback port in front of a gateway, so a test can stop the gateway and start
// it again on its data dir without waiting out the old port's TIME-WAIT (the new gateway gets a new port; the relay
// keeps its URL). While no gateway answers, each connection is dropped, as a stopped gateway's port would refuse it.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** where connections go; undefined drops them */
  target(port: number | undefined): void;
  /** ends every connection passing through (the gateway's stop ends them too) */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort?: number): Promise<TcpProxy> {
  let target = targetPort;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (target === undefined) return client.destroy();
    const upstream = connect({ host: '127.0.0.1', port: target });
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    target: (p) => {
      target = p;
    },
    cut: () => {
      for (const s of open) s.destroy();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
