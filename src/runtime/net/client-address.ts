// The operator's trusted proxies (setting trustedProxies): whether a connection's peer is one, and who is calling by
// network address (the peer, or, from a trusted proxy, the client its X-Forwarded-For names). The per-address throttles
// count by that address, and the transport reads X-Forwarded-Proto only from a trusted peer; X-Forwarded-* from anyone
// else is ignored, so a caller can neither pick its own throttle bucket nor claim it came over https.
import { cidr, inCidr, parseCidr, parseIp, type Cidr } from './ip.js';

const MAPPED = cidr('::ffff:0:0/96');
/** a forwarded address is the client's own text: kept short, it only names a throttle bucket and a log field */
const MAX_FORWARDED = 64;

export interface TrustedProxies {
  /** whether this address (a connection's peer, or a forwarded hop) is one of the operator's proxies */
  trusts(address: string): boolean;
  /** the client's address, from the peer's and its X-Forwarded-For header's ('' when absent) */
  clientAddress(o: { peer: string; forwardedFor: string }): string;
}

/**
 * From entries the config schema has checked (IP addresses and CIDR ranges); with none, nothing is trusted and the
 * peer is always the client. From a trusted peer, the X-Forwarded-For hops are read from the right (each proxy
 * appends the address it saw) and the first one that is not itself a trusted proxy is the client; hops to its left
 * are the client's own words and are never read. An IPv4-mapped IPv6 peer (::ffff:a.b.c.d) matches IPv4 entries.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const ranges = entries.map((s) => parseCidr(s)).filter((c): c is Cidr => c !== undefined);
  const trusts = (address: string): boolean => {
    if (ranges.length === 0) return false;
    const ip = parseIp(address.trim());
    if (!ip) return false;
    const v4 = ip.length === 16 && inCidr(ip, MAPPED) ? ip.slice(12) : undefined;
    return ranges.some((c) => inCidr(ip, c) || (v4 !== undefined && inCidr(v4, c)));
  };
  const clientAddress = ({ peer, forwardedFor }: { peer: string; forwardedFor: string }): string => {
    if (forwardedFor === '' || !trusts(peer)) return peer;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!.trim();
      if (hop === '') continue;
      if (i === 0 || !trusts(hop)) return hop.slice(0, MAX_FORWARDED);
    }
    return peer;
  };
  return { trusts, clientAddress };
}
