// The settings schemas for lists of addresses and CIDR ranges (the push allowlist, trusted proxies), shared by the
// gateway's config and the relay's, so that neither imports the other's whole config module.
import { z } from 'zod';
import { isIpOrCidr } from './guard.js';

/** an IP address or a CIDR range (push.allowlist, trustedProxies) */
export const IpOrCidr = z.string().refine(isIpOrCidr, 'not an IP address or CIDR range');

/** trusted proxies: a list, or (env, a flag) one comma-separated text; the relay's admin_trusted_proxies reads the same */
export const TrustedProxyList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : v,
  z.array(IpOrCidr).max(100),
);
