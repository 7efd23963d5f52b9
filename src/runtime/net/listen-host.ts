// The address the gateway listens on (config `host`, --host, A2A_HOST), checked as the config is read: a value that is
// neither an IP address nor a host name used to reach the listen only, after the data dir and its files were made.
import { isIP } from 'node:net';
import { z } from 'zod';

/** One label of a host name: letters, digits, hyphens inside; `_` too (getaddrinfo takes it, and container names carry it). */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/** Why `host` cannot be listened on, in words; undefined when it is an IP address or a well-formed host name. */
export function listenHostProblem(host: string): string | undefined {
  if (isIP(host) !== 0) return undefined;
  if (/^\[.*\]$/.test(host)) return `an IPv6 address goes without brackets (${host.slice(1, -1)})`;
  const labels = host.replace(/\.$/, '').split('.');
  const named = host.length <= 253 && labels.every((l) => LABEL.test(l));
  // all digits in its last label: meant as an IPv4 address, and not one (1.2.3, 256.1.1.1)
  if (named && !/^\d+$/.test(labels[labels.length - 1] ?? '')) return undefined;
  return 'must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name (such as localhost)';
}

export const ListenHost = z
  .string()
  .min(1)
  .superRefine((host, ctx) => {
    const problem = listenHostProblem(host);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
