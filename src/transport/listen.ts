// Binding the uWS app to its port: exclusively (no second gateway can share the port and split the traffic), and
// with the reason in words when the port cannot be had (uWS says only "no").
import { createServer } from 'node:net';
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT: no SO_REUSEPORT, so a port in use is refused instead of shared. */
const EXCLUSIVE = 1;

export class ListenError extends Error {
  readonly code = 'ERR_LISTEN';
  constructor(readonly o: { host: string; port: number; why: string; errno?: string }) {
    super(`cannot listen on ${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}: ${o.why}`);
    this.name = 'ListenError';
  }
}

const WHY: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (another gateway or program listens there; stop it or choose another port with --port or A2A_PORT)',
  EACCES: 'permission denied (ports below 1024 need privileges; choose another port with --port or A2A_PORT)',
  EADDRNOTAVAIL: 'the address is not available on this machine (check --host or A2A_HOST)',
  ENOTFOUND: 'the host name does not resolve (check --host or A2A_HOST)',
  EAI_AGAIN: 'the host name does not resolve (check --host or A2A_HOST)',
};

/** uWS gives no errno: a short-lived listen with node's net on the same address tells the reason. */
function whyNot(host: string, port: number): Promise<{ why: string; errno?: string }> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve({ why: (e.code && WHY[e.code]) ?? e.message, errno: e.code }));
    probe.listen({ host, port, exclusive: true }, () =>
      probe.close(() => resolve({ why: 'refused by the HTTP server (the port was busy for a moment; try again)' })),
    );
  });
}

export function listenExclusive(app: TemplatedApp, o: { host: string; port: number }): Promise<us_listen_socket> {
  // this build takes (host, port, options, cb) though its typings list options only without a host
  const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (t: us_listen_socket | false) => void) => void;
  return new Promise((resolve, reject) => {
    listen.call(app, o.host, o.port, EXCLUSIVE, (token) => {
      if (token) return resolve(token);
      void whyNot(o.host, o.port).then((r) => reject(new ListenError({ host: o.host, port: o.port, ...r })));
    });
  });
}
