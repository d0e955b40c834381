// Turns the body of a public intelligence feed into normalized entries, one parser per format the
// publishers actually use. Pure: no I/O and no clock; fetching, size limits, storage and deciding
// whether a much smaller list should replace the last one are the caller's business.
//
// Every parser is one linear pass over the body (a split or JSON.parse, then a walk) plus one sort,
// and deduplicates through a Map, so a body of the size the caller allows costs time and memory in
// proportion to it.
import { parseIpEntry } from '../signals/ip/parse-ip-entry.js';

// ip_list: one address or CIDR per line (the Tor bulk exit list, Cloudflare's ips-v4/ips-v6, plain
// CIDR lists). aws_ip_ranges: ip-ranges.json. gcp_cloud_json: Google Cloud's cloud.json.
// oracle_public_ip_ranges: public_ip_ranges.json. geofeed_csv: an RFC 8805 geofeed.
// domain_list: one domain per line. rdap_bootstrap: IANA's RDAP bootstrap registry for DNS (RFC 9224).
export const FEED_FORMATS = [
  'ip_list',
  'aws_ip_ranges',
  'gcp_cloud_json',
  'oracle_public_ip_ranges',
  'geofeed_csv',
  'domain_list',
  'rdap_bootstrap',
] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

// entries: normalized, deduplicated and sorted (IP entries by family, address, then prefix length;
// the others as strings). skipped: items of the right format that were not usable (a bad line, a
// prefix object without its prefix), never comments or blank lines.
export interface ParsedFeed {
  entries: string[];
  skipped: number;
}

// The body is not of the format at all (an HTML error page served with 200, truncated JSON, a JSON
// document of another shape, an empty JSON body, or a list in which no item is usable), as opposed
// to a few bad items, which are counted in `skipped`.
export class FeedFormatError extends Error {
  constructor(
    readonly format: FeedFormat,
    readonly reason: string,
  ) {
    super(`${format}: ${reason}`);
    this.name = 'FeedFormatError';
  }
}

export function parseFeed(format: FeedFormat, body: string): ParsedFeed {
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  switch (format) {
    case 'ip_list':
      return ipList(text);
    case 'geofeed_csv':
      return geofeed(text);
    case 'aws_ip_ranges':
      return awsIpRanges(text);
    case 'gcp_cloud_json':
      return gcpCloudJson(text);
    case 'oracle_public_ip_ranges':
      return oraclePublicIpRanges(text);
    case 'domain_list':
      return domainList(text);
    case 'rdap_bootstrap':
      return rdapBootstrap(text);
  }
}

// `#` and `;` start a comment anywhere on the line (`;` as in DROP-style lists: `192.0.2.0/24 ; SBL1`).
function ipList(text: string): ParsedFeed {
  const ips = new IpEntries('ip_list');
  rejectHtml('ip_list', text);
  for (const line of text.split('\n')) {
    const entry = cutAt(cutAt(line, '#'), ';').trim();
    if (entry !== '') ips.add(entry);
  }
  return ips.done('no line is an address or a CIDR');
}

// RFC 8805: CSV rows of ip_prefix,alpha2code,region,city,postal_code, `#` comment lines. Only the
// prefix (a single address or a CIDR) is read; a header row without `#` is one skipped line.
function geofeed(text: string): ParsedFeed {
  const ips = new IpEntries('geofeed_csv');
  rejectHtml('geofeed_csv', text);
  for (const line of text.split('\n')) {
    const row = cutAt(line, '#').trim();
    if (row === '') continue;
    const first = cutAt(row, ',').trim();
    ips.add(first.length > 1 && first.startsWith('"') && first.endsWith('"') ? first.slice(1, -1).trim() : first);
  }
  return ips.done('no row starts with an address or a CIDR');
}

// { syncToken, createDate, prefixes: [{ ip_prefix, region, network_border_group, service }],
//   ipv6_prefixes: [{ ipv6_prefix, … }] }. A prefix appears once per service that uses it.
function awsIpRanges(text: string): ParsedFeed {
  const top = jsonObject('aws_ip_ranges', text);
  const ips = new IpEntries('aws_ip_ranges');
  for (const item of arrayMember('aws_ip_ranges', top, 'prefixes')) ips.add(member(item, 'ip_prefix'));
  for (const item of arrayMember('aws_ip_ranges', top, 'ipv6_prefixes')) ips.add(member(item, 'ipv6_prefix'));
  return ips.done('no item has an ip_prefix or ipv6_prefix');
}

// { syncToken, creationTime, prefixes: [{ ipv4Prefix | ipv6Prefix, service, scope }] }.
function gcpCloudJson(text: string): ParsedFeed {
  const top = jsonObject('gcp_cloud_json', text);
  const ips = new IpEntries('gcp_cloud_json');
  for (const item of arrayMember('gcp_cloud_json', top, 'prefixes')) {
    const v4 = member(item, 'ipv4Prefix');
    const v6 = member(item, 'ipv6Prefix');
    if (v4 === undefined && v6 === undefined) ips.add(undefined);
    if (v4 !== undefined) ips.add(v4);
    if (v6 !== undefined) ips.add(v6);
  }
  return ips.done('no item has an ipv4Prefix or ipv6Prefix');
}

// { last_updated_timestamp, regions: [{ region, cidrs: [{ cidr, tags }] }] }. A region without a
// cidrs array is one skipped item.
function oraclePublicIpRanges(text: string): ParsedFeed {
  const top = jsonObject('oracle_public_ip_ranges', text);
  const ips = new IpEntries('oracle_public_ip_ranges');
  for (const region of arrayMember('oracle_public_ip_ranges', top, 'regions')) {
    const cidrs = member(region, 'cidrs');
    if (!Array.isArray(cidrs)) ips.add(undefined);
    else for (const item of cidrs) ips.add(member(item, 'cidr'));
  }
  return ips.done('no region has a usable cidr');
}

// One domain per line, lowercased. IDNs are kept in the A-label (punycode) form they are written
// in; a line in Unicode, a single label (`com` would match every .com address) or an all-digit top
// label (an address, not a name) is skipped.
function domainList(text: string): ParsedFeed {
  rejectHtml('domain_list', text);
  const domains = new Set<string>();
  let skipped = 0;
  for (const line of text.split('\n')) {
    const raw = cutAt(line, '#').trim().toLowerCase();
    if (raw === '') continue;
    const name = raw.endsWith('.') ? raw.slice(0, -1) : raw;
    if (isHostname(name, 2)) domains.add(name);
    else skipped++;
  }
  return finish('domain_list', [...domains].sort(), skipped, 'no line is a domain name');
}

// RFC 9224: { version, publication, description?, services: [[[labels…], [base URLs…]], …] }. One
// entry per label, `<label> <base URL>`: the https URL where there are several (the RFC says the
// secure one SHOULD be preferred), without its trailing `/` (the RFC requires one, for appending
// paths). A label listed again with another URL keeps the first and counts as skipped.
function rdapBootstrap(text: string): ParsedFeed {
  const top = jsonObject('rdap_bootstrap', text);
  const urls = new Map<string, string>();
  let skipped = 0;
  for (const service of arrayMember('rdap_bootstrap', top, 'services')) {
    const [labels, bases] = Array.isArray(service) && service.length === 2 ? service : [undefined, undefined];
    if (!Array.isArray(labels) || !Array.isArray(bases)) {
      skipped++;
      continue;
    }
    const base = preferredBase(bases);
    for (const value of labels) {
      const label = typeof value === 'string' ? value.trim().toLowerCase() : '';
      const known = urls.get(label);
      if (base === null || !isHostname(label, 1) || (known !== undefined && known !== base)) skipped++;
      else urls.set(label, base);
    }
  }
  const entries = [...urls].map(([label, base]) => `${label} ${base}`).sort();
  return finish('rdap_bootstrap', entries, skipped, 'no service has a usable label and base URL');
}

function preferredBase(bases: unknown[]): string | null {
  let fallback: string | null = null;
  for (const value of bases) {
    const url = typeof value === 'string' ? baseUrl(value) : null;
    if (url?.protocol === 'https:') return withoutTrailingSlash(url);
    if (url && fallback === null) fallback = withoutTrailingSlash(url);
  }
  return fallback;
}

// A base URL is http(s) with no credentials, query or fragment: anything else is not a base to
// append RDAP paths to.
function baseUrl(value: string): URL | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  const plain = url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  return (url.protocol === 'https:' || url.protocol === 'http:') && plain ? url : null;
}

function withoutTrailingSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

// IP entries through parse-ip-entry, so they mean what the intel loader will make of them:
// host bits dropped, IPv4-mapped IPv6 as IPv4, a single address written without its /32 or /128.
// Each entry is stored behind a fixed-width sort key (family, address in hex, prefix length), so
// one plain string sort puts them in address order.
class IpEntries {
  private readonly keyed = new Map<string, string>();
  private seen = 0;
  private skipped = 0;

  constructor(private readonly format: FeedFormat) {}

  add(value: unknown): void {
    this.seen++;
    const range = typeof value === 'string' ? parseIpEntry(value.trim()) : null;
    if (range === null) {
      this.skipped++;
      return;
    }
    let address: string;
    let prefix: number;
    let hex: string;
    if (range.family === 4) {
      const first = Number(range.first);
      address = v4Text(first);
      prefix = Math.clz32(Number(range.last) - first);
      hex = first.toString(16).padStart(8, '0');
    } else {
      address = v6Text(range.first);
      prefix = range.last === range.first ? 128 : 128 - (range.last - range.first).toString(2).length;
      hex = range.first.toString(16).padStart(32, '0');
    }
    const entry = prefix === (range.family === 4 ? 32 : 128) ? address : `${address}/${prefix}`;
    if (!this.keyed.has(entry)) this.keyed.set(entry, `${range.family}${hex}${String(prefix).padStart(3, '0')} ${entry}`);
  }

  done(noneUsable: string): ParsedFeed {
    const ordered = [...this.keyed.values()].sort().map((keyed) => keyed.slice(keyed.indexOf(' ') + 1));
    if (this.seen > 0 && ordered.length === 0) throw new FeedFormatError(this.format, noneUsable);
    return { entries: ordered, skipped: this.skipped };
  }
}

function v4Text(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

// RFC 5952: lowercase hex without leading zeros, and `::` for the first longest run of two or more
// zero groups.
function v6Text(value: bigint): string {
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let i = 0; i <= 8; i++) {
    if (i < 8 && groups[i] === 0) {
      if (runStart < 0) runStart = i;
    } else if (runStart >= 0) {
      if (i - runStart > bestLength) [bestStart, bestLength] = [runStart, i - runStart];
      runStart = -1;
    }
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function isHostname(name: string, minLabels: number): boolean {
  if (name.length > 253) return false;
  const labels = name.split('.');
  return labels.length >= minLabels && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1] as string);
}

function finish(format: FeedFormat, entries: string[], skipped: number, noneUsable: string): ParsedFeed {
  if (skipped > 0 && entries.length === 0) throw new FeedFormatError(format, noneUsable);
  return { entries, skipped };
}

function cutAt(line: string, marker: string): string {
  const at = line.indexOf(marker);
  return at < 0 ? line : line.slice(0, at);
}

// An error page served with status 200 is the commonest wrong body; no list line starts with `<`.
function rejectHtml(format: FeedFormat, text: string): void {
  if (text.trimStart().startsWith('<')) throw new FeedFormatError(format, 'an HTML or XML page, not a list');
}

function jsonObject(format: FeedFormat, text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed === '') throw new FeedFormatError(format, 'empty body');
  if (trimmed.startsWith('<')) throw new FeedFormatError(format, 'an HTML or XML page, not JSON');
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    throw new FeedFormatError(format, `not JSON (${(err as Error).message.slice(0, 80)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FeedFormatError(format, 'JSON, but not an object at the top level');
  }
  return value as Record<string, unknown>;
}

function arrayMember(format: FeedFormat, top: Record<string, unknown>, key: string): unknown[] {
  const value = top[key];
  if (!Array.isArray(value)) throw new FeedFormatError(format, `no "${key}" array at the top level`);
  return value;
}

function member(item: unknown, key: string): unknown {
  return typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>)[key] : undefined;
}
