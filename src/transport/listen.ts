// Binding the uWS app to its port: exclusively (no second gateway can share the port and split the traffic), and
// with the reason in words when the port cannot be had (uWS says only "no"). Port 0 ("any free port") is chosen here,
// not by uWS: uSockets sets SO_REUSEADDR only when it is given a port, and a listening socket without it leaves its
// closed connections' TIME-WAIT holding the port for a minute, so a gateway restarted on that port could not listen.
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

/** Why a short-lived listen with node's net on the address fails; undefined when it succeeds (and is let go at once). */
function probeListen(host: string, port: number): Promise<{ why: string; errno?: string } | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve({ why: (e.code && WHY[e.code]) ?? e.message, errno: e.code }));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** uWS gives no errno: a probe on the same address tells the reason. */
async function whyNot(host: string, port: number): Promise<{ why: string; errno?: string }> {
  return (await probeListen(host, port)) ?? { why: 'refused by the HTTP server (the port was busy for a moment; try again)' };
}

/**
 * Throws the ListenError the listen would, when the address cannot be had now (a host that does not resolve or is not
 * this machine's, a port in use or privileged): the gateway checks it before it makes its data dir and files, which a
 * start refused at its listen left behind. The listen itself still reports what changes in between.
 */
export async function checkListenable(o: { host: string; port: number }): Promise<void> {
  const no = await probeListen(o.host, o.port);
  if (no) throw new ListenError({ host: o.host, port: o.port, ...no });
}

/** A port free on `host` now (the kernel's pick for a listen on port 0, let go at once); undefined when none is had. */
function freePort(host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Another program may take the free port between the probe and uWS's listen: a few more picks before giving up. */
const FREE_PORT_TRIES = 5;

export async function listenExclusive(app: TemplatedApp, o: { host: string; port: number }): Promise<us_listen_socket> {
  // this build takes (host, port, options, cb) though its typings list options only without a host
  const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (t: us_listen_socket | false) => void) => void;
  const attempt = (port: number) => new Promise<us_listen_socket | false>((resolve) => listen.call(app, o.host, port, EXCLUSIVE, resolve));
  if (o.port === 0) {
    for (let i = 0; i < FREE_PORT_TRIES; i++) {
      const port = await freePort(o.host);
      if (port === undefined) break;
      const token = await attempt(port);
      if (token) return token;
    }
  }
  const token = await attempt(o.port);
  if (token) return token;
  throw new ListenError({ host: o.host, port: o.port, ...(await whyNot(o.host, o.port)) });
}
