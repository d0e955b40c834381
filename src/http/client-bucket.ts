// The bucket a client address counts in, for every per-IP limit: an IPv4 address as it is (an
// IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64, the smallest block one
// subscriber is given, so that one host cannot walk its own /64 to get fresh buckets.
import ipaddr from 'ipaddr.js';

export function clientBucket(address: string | undefined): string {
  if (!address) return 'unknown';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    const parts = v6.parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  }
  return parsed.toString();
}
