// The SSRF guard for outbound URLs (webhooks, client-mode connections): which addresses are internal, the operator's
// allowlist, and the two checks (the URL before it is accepted, every resolved address at connect time through a custom `lookup`).
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { cidr, embeddedV4, formatIp, inCidr, parseCidr, parseIp, type Cidr, type IpBytes } from './ip.js';

/** What a name resolves to; injectable so tests can stand in for DNS (which is outside the project). */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** node's resolver (getaddrinfo, so /etc/hosts too), every address of the name. */
export const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Why an address is internal; the label reads in a message: "resolves to a loopback address ...". */
export type Category = 'metadata' | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'cgnat' | 'multicast' | 'unique-local' | 'site-local' | 'reserved';

const LABEL: Record<Category, string> = {
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  cgnat: 'a carrier-grade NAT (CGNAT) address',
  multicast: 'a multicast address',
  'unique-local': 'a unique-local address',
  'site-local': 'a site-local address',
  reserved: 'a reserved address',
};

// first match wins: metadata before link-local, so the message names the sharper reason
const V4: Array<[Category, Cidr]> = [
  ['metadata', cidr('169.254.169.254')],
  ['unspecified', cidr('0.0.0.0/8')],
  ['loopback', cidr('127.0.0.0/8')],
  ['private', cidr('10.0.0.0/8')],
  ['private', cidr('172.16.0.0/12')],
  ['private', cidr('192.168.0.0/16')],
  ['link-local', cidr('169.254.0.0/16')],
  ['cgnat', cidr('100.64.0.0/10')],
  ['multicast', cidr('224.0.0.0/4')],
  ['reserved', cidr('240.0.0.0/4')],
  ['reserved', cidr('192.0.0.0/24')],
  ['reserved', cidr('192.0.2.0/24')],
  // the deprecated 6to4 relay anycast (RFC 7526): no receiver lives there
  ['reserved', cidr('192.88.99.0/24')],
  ['reserved', cidr('198.18.0.0/15')],
  ['reserved', cidr('198.51.100.0/24')],
  ['reserved', cidr('203.0.113.0/24')],
];

const V6: Array<[Category, Cidr]> = [
  ['metadata', cidr('fd00:ec2::254')],
  ['unspecified', cidr('::')],
  ['loopback', cidr('::1')],
  ['link-local', cidr('fe80::/10')],
  ['site-local', cidr('fec0::/10')],
  ['unique-local', cidr('fc00::/7')],
  ['multicast', cidr('ff00::/8')],
  ['reserved', cidr('100::/64')],
  ['reserved', cidr('2001:db8::/32')],
  ['reserved', cidr('3fff::/20')],
  // local-use IPv4/IPv6 translation (RFC 8215): a site's own NAT64 may carry it to any internal IPv4 address, in a
  // place that depends on its prefix length, so the whole range is refused rather than read for an IPv4 address
  ['reserved', cidr('64:ff9b:1::/48')],
  // SRv6 segment ids (RFC 9602): not globally reachable
  ['reserved', cidr('5f00::/16')],
];

/** The operator's allowlist (for webhooks, config `push.allowlist`): CIDRs or exact addresses that are admitted although internal. */
export interface Allowlist {
  readonly entries: readonly Cidr[];
}

export class AllowlistError extends Error {
  readonly code = 'ERR_ALLOWLIST';
  constructor(
    readonly field: string,
    readonly value: string,
  ) {
    super(`${field}: '${value}' is not an IP address or CIDR range`);
    this.name = 'AllowlistError';
  }
}

export const isIpOrCidr = (s: string): boolean => parseCidr(s) !== undefined;

/** `field` names the setting in the error (e.g. `push.allowlist`). */
export function parseAllowlist(list: readonly string[], field = 'allowlist'): Allowlist {
  return {
    entries: list.map((s, i) => {
      const c = parseCidr(s);
      if (!c) throw new AllowlistError(`${field}[${i}]`, s);
      return c;
    }),
  };
}

const admitted = (ip: IpBytes, allow: Allowlist): boolean => allow.entries.some((c) => inCidr(ip, c));

function categorize(ip: IpBytes): { category: Category; via?: IpBytes } | undefined {
  const table = ip.length === 4 ? V4 : V6;
  for (const [category, range] of table) if (inCidr(ip, range)) return { category };
  const v4 = embeddedV4(ip);
  if (v4) {
    const inner = categorize(v4);
    if (inner) return { category: inner.category, via: v4 };
  }
  return undefined;
}

export type AddressVerdict = { ok: true } | { ok: false; category: Category; message: string };

/**
 * Whether `address` may be connected to. An internal address passes only when the allowlist holds it
 * (for an IPv6 form that embeds an IPv4 address, holding either one is enough).
 */
export function checkAddress(address: string, allow: Allowlist): AddressVerdict {
  const ip = parseIp(address);
  if (!ip) return { ok: false, category: 'reserved', message: `'${address}' is not an IP address` };
  const found = categorize(ip);
  if (!found) return { ok: true };
  if (admitted(ip, allow) || (found.via !== undefined && admitted(found.via, allow))) return { ok: true };
  const shown = found.via ? `${address} (IPv4 ${formatIp(found.via)})` : address;
  return { ok: false, category: found.category, message: `${LABEL[found.category]} ${shown}` };
}

/** `localhost` and its subdomains are loopback by definition (RFC 6761), whatever a resolver says. */
const isLocalhostName = (host: string): boolean => {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
};

export type UrlRefusal = { reason: 'url' | 'scheme' | 'name' | 'address'; message: string; address?: string };
export type UrlVerdict = { ok: true; url: URL } | { ok: false; refusal: UrlRefusal };

/** What the static URL checks need: the allowlist, and what the URL is called in a refusal ("<what> refused: ..."). */
export interface UrlPolicy {
  allowlist: Allowlist;
  /** e.g. 'push URL'; default 'URL' */
  what?: string;
}

/** The checks that resolve names: the policy and the resolver. */
export interface GuardOptions extends UrlPolicy {
  resolve: Resolve;
}

const refusedText = (what: string | undefined, message: string): string => `${what ?? 'URL'} refused: ${message}`;

const refuse = (r: UrlRefusal, what: string | undefined): UrlVerdict => ({ ok: false, refusal: { ...r, message: refusedText(what, r.message) } });

/**
 * The checks that need no DNS: an absolute http(s) URL, not a `localhost` name, and (for an IP
 * literal, which is never looked up at connect time) an admitted address.
 */
export function checkUrlStatic(raw: string, o: UrlPolicy): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse({ reason: 'url', message: 'not an absolute URL' }, o.what);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse({ reason: 'scheme', message: `scheme '${url.protocol.replace(/:$/, '')}' is not allowed (http or https only)` }, o.what);
  }
  if (url.hostname === '') return refuse({ reason: 'url', message: 'no host' }, o.what);
  if (isLocalhostName(url.hostname)) return refuse({ reason: 'name', message: `'${url.hostname}' names a loopback address` }, o.what);
  if (parseIp(url.hostname)) {
    const v = checkAddress(url.hostname.replace(/^\[|\]$/g, ''), o.allowlist);
    if (!v.ok) return refuse({ reason: 'address', message: `points to ${v.message}`, address: url.hostname }, o.what);
  }
  return { ok: true, url };
}

/**
 * The check before a URL is accepted (a webhook's registration): the static checks, then every address
 * the name resolves to now. A name that does not resolve at all is let through: nothing can be judged
 * yet, and every connection checks the addresses it actually connects to (a name can change what it
 * resolves to anyway).
 */
export async function checkUrl(raw: string, o: GuardOptions): Promise<UrlVerdict> {
  const v = checkUrlStatic(raw, o);
  if (!v.ok || parseIp(v.url.hostname)) return v;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await o.resolve(v.url.hostname);
  } catch {
    return v;
  }
  for (const a of addresses) {
    const c = checkAddress(a.address, o.allowlist);
    if (!c.ok) return refuse({ reason: 'address', message: `resolves to ${c.message}`, address: a.address }, o.what);
  }
  return v;
}

/** Raised inside a connection attempt whose resolved address is refused; the attempt fails, nothing is sent. */
export class AddressRefused extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

/**
 * A `lookup` for http/https requests that resolves with `resolve` and refuses the connection unless
 * every address is admitted, so what is checked is what is connected to (no DNS-rebinding gap).
 */
export function guardedLookup(o: GuardOptions): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (err: NodeJS.ErrnoException) => callback(err, '', 0);
    if (isLocalhostName(hostname)) return fail(new AddressRefused(refusedText(o.what, `'${hostname}' names a loopback address`)));
    o.resolve(hostname).then(
      (found) => {
        for (const a of found) {
          const c = checkAddress(a.address, o.allowlist);
          if (!c.ok) return fail(new AddressRefused(refusedText(o.what, `${hostname} resolves to ${c.message}`)));
        }
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (wanted.length === 0) {
          const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          e.code = 'ENOTFOUND';
          return fail(e);
        }
        if (options.all)
          return callback(
            null,
            wanted.map((a) => ({ address: a.address, family: a.family })),
          );
        const first = wanted[0]!;
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => fail(err),
    );
  };
}
