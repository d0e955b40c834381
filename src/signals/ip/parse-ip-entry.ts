// Turns one intel entry (an address or a CIDR) into an IpRange, and an address to look up into an
// IpKey. IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes IPv4 on both sides, so either spelling matches.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { IpKey, IpRange } from './ip-range-set.js';

// An address as numbers: IPv4 as one unsigned 32-bit value, IPv6 as its eight 16-bit parts.
type Parsed = { family: 4; value: number } | { family: 6; parts: number[] };

// An entry that is not one address or one CIDR ("1.2.3.4 extra", "10.0.0.0/33", "bogus") gives null.
// Host bits under the prefix are ignored ("10.1.2.3/8" is 10.0.0.0/8): that is what the operator meant.
export function parseIpEntry(text: string): IpRange | null {
  const slash = text.indexOf('/');
  const family = isIP(slash < 0 ? text : text.slice(0, slash));
  if (family === 0) return null;
  let parsed: Parsed;
  let prefix: number;
  try {
    const [address, length] = slash < 0 ? [parseFamily(family, text), family === 4 ? 32 : 128] : parseCidr(family, text);
    parsed = address;
    prefix = length;
  } catch {
    return null;
  }
  if (parsed.family === 6 && isMapped(parsed.parts) && prefix >= 96) {
    parsed = { family: 4, value: mappedValue(parsed.parts) };
    prefix -= 96;
  }
  const value = parsed.family === 4 ? BigInt(parsed.value) : partsToBigInt(parsed.parts);
  const hostMask = (1n << BigInt((parsed.family === 4 ? 32 : 128) - prefix)) - 1n;
  const first = value & ~hostMask;
  return { family: parsed.family, first, last: first | hostMask };
}

// Never throws: anything that is not a plain IPv4 or IPv6 address gives null.
export function parseIpKey(text: string): IpKey | null {
  const family = isIP(text);
  if (family === 0) return null;
  let parsed: Parsed;
  try {
    parsed = parseFamily(family, text);
  } catch {
    return null;
  }
  if (parsed.family === 4) return { family: 4, value: parsed.value };
  const p = parsed.parts;
  if (isMapped(p)) return { family: 4, value: mappedValue(p) };
  return { family: 6, words: [pair(p[0], p[1]), pair(p[2], p[3]), pair(p[4], p[5]), pair(p[6], p[7])] };
}

// node:net's isIP gates first and tells the family, so ipaddr.js parses once with the right parser.
// ipaddr.js alone would also take the classful and hex IPv4 spellings ("127.1", "0x7f.0.0.1",
// "2130706433") that no list means and no client sends, and its generic parse() parses IPv6 twice.
function parseFamily(family: number, text: string): Parsed {
  if (family === 4) return { family: 4, value: octetsToNumber(ipaddr.IPv4.parse(text).octets) };
  return { family: 6, parts: ipaddr.IPv6.parse(text).parts };
}

function parseCidr(family: number, text: string): [Parsed, number] {
  if (family === 4) {
    const [address, prefix] = ipaddr.IPv4.parseCIDR(text);
    return [{ family: 4, value: octetsToNumber(address.octets) }, prefix];
  }
  const [address, prefix] = ipaddr.IPv6.parseCIDR(text);
  return [{ family: 6, parts: address.parts }, prefix];
}

// ::ffff:0:0/96. Checked on the parts because ipaddr.js's isIPv4MappedAddress() walks every
// special range to answer, which dominated load time on large lists.
function isMapped(parts: number[]): boolean {
  return parts[0] === 0 && parts[1] === 0 && parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0xffff;
}

function mappedValue(parts: number[]): number {
  return pair(parts[6], parts[7]);
}

function pair(high: number | undefined, low: number | undefined): number {
  return (((high ?? 0) << 16) | (low ?? 0)) >>> 0;
}

function octetsToNumber(octets: number[]): number {
  return (((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)) >>> 0;
}

function partsToBigInt(parts: number[]): bigint {
  let value = 0n;
  for (const part of parts) value = (value << 16n) | BigInt(part);
  return value;
}
