// IP addresses as bytes, and CIDR ranges over them: the ground the SSRF guard stands on. Pure, no DNS, no I/O.
import { isIP } from 'node:net';

/** 4 bytes (IPv4) or 16 (IPv6). */
export type IpBytes = Uint8Array;

export interface Cidr {
  bytes: IpBytes;
  bits: number;
}

/** Strips URL brackets and an IPv6 zone (`fe80::1%eth0`). */
const bare = (s: string): string => (s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s).split('%')[0] ?? '';

/** The address's bytes, or undefined when `s` is not an IP literal (node's strict parser: no octal, no shorthand). */
export function parseIp(s: string): IpBytes | undefined {
  const ip = bare(s);
  const v = isIP(ip);
  if (v === 4) return Uint8Array.from(ip.split('.').map(Number));
  if (v === 6) return parseV6(ip);
  return undefined;
}

function parseV6(ip: string): IpBytes {
  const out = new Uint8Array(16);
  let text = ip;
  let v4: number[] = [];
  if (text.includes('.')) {
    const at = text.lastIndexOf(':');
    v4 = text
      .slice(at + 1)
      .split('.')
      .map(Number);
    text = `${text.slice(0, at + 1)}0:0`;
  }
  const [head = '', tail] = text.split('::');
  const hs = head ? head.split(':') : [];
  const ts = tail ? tail.split(':') : [];
  const groups = tail === undefined ? hs : [...hs, ...new Array<string>(8 - hs.length - ts.length).fill('0'), ...ts];
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 0xff;
  });
  if (v4.length === 4) out.set(v4, 12);
  return out;
}

/** `a.b.c.d/n`, `v6/n`, or a single address (a /32 or /128). Undefined when malformed. */
export function parseCidr(s: string): Cidr | undefined {
  const [addr = '', bitsText, extra] = s.trim().split('/');
  if (extra !== undefined) return undefined;
  const bytes = parseIp(addr);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  if (bitsText === undefined) return { bytes, bits: max };
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= max ? { bytes, bits } : undefined;
}

export function inCidr(ip: IpBytes, c: Cidr): boolean {
  if (ip.length !== c.bytes.length) return false;
  let left = c.bits;
  for (let i = 0; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if (((ip[i] ?? 0) & mask) !== ((c.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Builds a CIDR from trusted source text (the guard's own tables); throws on a typo there. */
export function cidr(s: string): Cidr {
  const c = parseCidr(s);
  if (!c) throw new Error(`bad CIDR in table: ${s}`);
  return c;
}

/**
 * The IPv4 address an IPv6 one carries, for the forms that reach an IPv4 host: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16).
 */
export function embeddedV4(ip: IpBytes): IpBytes | undefined {
  if (ip.length !== 16) return undefined;
  if (inCidr(ip, MAPPED) || inCidr(ip, TRANSLATED) || inCidr(ip, NAT64) || inCidr(ip, COMPATIBLE)) return ip.slice(12, 16);
  if (inCidr(ip, SIX_TO_FOUR)) return ip.slice(2, 6);
  return undefined;
}

const MAPPED = cidr('::ffff:0:0/96');
/** IPv4-translated (RFC 2765's SIIT): a translator carries it to the IPv4 address in its last 32 bits */
const TRANSLATED = cidr('::ffff:0:0:0/96');
const COMPATIBLE = cidr('::/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');

export const formatIp = (ip: IpBytes): string =>
  ip.length === 4 ? ip.join('.') : Array.from({ length: 8 }, (_, i) => (((ip[2 * i] ?? 0) << 8) | (ip[2 * i + 1] ?? 0)).toString(16)).join(':');
