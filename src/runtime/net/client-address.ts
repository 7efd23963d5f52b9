// Who is calling, by network address: the peer of the connection, or, when that peer is a proxy the operator trusts
// (setting trustedProxies), the client its X-Forwarded-For names. The per-address throttles count by this address;
// X-Forwarded-For from anyone else is ignored, so a caller cannot pick its own throttle bucket.
import { cidr, inCidr, parseCidr, parseIp, type Cidr } from './ip.js';

const MAPPED = cidr('::ffff:0:0/96');
/** a forwarded address is the client's own text: kept short, it only names a throttle bucket and a log field */
const MAX_FORWARDED = 64;

/**
 * From entries the config schema has checked (IP addresses and CIDR ranges); with none, the peer is always the
 * client. From a trusted peer, the X-Forwarded-For hops are read from the right (each proxy appends the address it
 * saw) and the first one that is not itself a trusted proxy is the client; hops to its left are the client's own
 * words and are never read. An IPv4-mapped IPv6 peer (::ffff:a.b.c.d) matches IPv4 entries.
 */
export function clientAddressReader(trustedProxies: readonly string[]): (o: { peer: string; forwardedFor: string }) => string {
  if (trustedProxies.length === 0) return ({ peer }) => peer;
  const ranges = trustedProxies.map((s) => parseCidr(s)).filter((c): c is Cidr => c !== undefined);
  const trusted = (address: string): boolean => {
    const ip = parseIp(address.trim());
    if (!ip) return false;
    const v4 = ip.length === 16 && inCidr(ip, MAPPED) ? ip.slice(12) : undefined;
    return ranges.some((c) => inCidr(ip, c) || (v4 !== undefined && inCidr(v4, c)));
  };
  return ({ peer, forwardedFor }) => {
    if (forwardedFor === '' || !trusted(peer)) return peer;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!.trim();
      if (hop === '') continue;
      if (i === 0 || !trusted(hop)) return hop.slice(0, MAX_FORWARDED);
    }
    return peer;
  };
}
