// The public feeds the updater fetches: built in, and overridable by a JSON file of one's own
// (INTEL_SOURCES). Each source names its URL, the format its publisher uses, the category its
// entries feed and how often it is worth asking. docs/ip-intel.md lists them with their terms.
import fs from 'node:fs';
import { AppError } from '../errors.js';
import { FEED_FORMATS, type FeedFormat } from './feed-formats.js';
import { allowedFeedUrl } from './fetch-feed.js';

// What a category's entries feed: the ip signal's three lists, the disposable-email list, and
// the RDAP servers per top-level domain (domain age).
export const FEED_CATEGORIES = ['tor_exit', 'proxy', 'datacenter', 'disposable_email', 'rdap_bootstrap'] as const;
export type FeedCategory = (typeof FEED_CATEGORIES)[number];

export interface IntelFeedSource {
  name: string;
  category: FeedCategory;
  url: string;
  format: FeedFormat;
  // Asked again by the scheduled update once this long has passed since its last good answer.
  everySeconds: number;
}

const HOUR = 3600;

export const DEFAULT_SOURCES: readonly IntelFeedSource[] = [
  // A Tor exit list is stale within hours.
  {
    name: 'tor_exit_torproject',
    category: 'tor_exit',
    url: 'https://check.torproject.org/torbulkexitlist',
    format: 'ip_list',
    everySeconds: HOUR,
  },
  {
    name: 'datacenter_aws',
    category: 'datacenter',
    url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
    format: 'aws_ip_ranges',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'datacenter_google_cloud',
    category: 'datacenter',
    url: 'https://www.gstatic.com/ipranges/cloud.json',
    format: 'gcp_cloud_json',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'datacenter_cloudflare_v4',
    category: 'datacenter',
    url: 'https://www.cloudflare.com/ips-v4',
    format: 'ip_list',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'datacenter_cloudflare_v6',
    category: 'datacenter',
    url: 'https://www.cloudflare.com/ips-v6',
    format: 'ip_list',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'datacenter_oracle',
    category: 'datacenter',
    url: 'https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json',
    format: 'oracle_public_ip_ranges',
    // Oracle asks to be polled at most once a day.
    everySeconds: 24 * HOUR,
  },
  {
    name: 'datacenter_digitalocean',
    category: 'datacenter',
    url: 'https://digitalocean.com/geo/google.csv',
    format: 'geofeed_csv',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'datacenter_linode',
    category: 'datacenter',
    url: 'https://geoip.linode.com/',
    format: 'geofeed_csv',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'proxy_x4bnet_vpn',
    category: 'proxy',
    url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt',
    format: 'ip_list',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'proxy_x4bnet_vpn_v6',
    category: 'proxy',
    url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv6.txt',
    format: 'ip_list',
    everySeconds: 6 * HOUR,
  },
  {
    name: 'disposable_email_domains',
    category: 'disposable_email',
    url: 'https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf',
    format: 'domain_list',
    everySeconds: 24 * HOUR,
  },
  {
    name: 'rdap_bootstrap_iana',
    category: 'rdap_bootstrap',
    url: 'https://data.iana.org/rdap/dns.json',
    format: 'rdap_bootstrap',
    everySeconds: 24 * HOUR,
  },
];

// The file's shape: { "defaults": true, "sources": [{ "name", "url", "format", "category",
// "every_hours", "enabled" }] }. A source named like a built-in one replaces it (`"enabled":
// false` turns it off); others are added; "defaults": false keeps only the file's.
interface SourcesFile {
  defaults?: boolean;
  sources?: {
    name?: unknown;
    url?: unknown;
    format?: unknown;
    category?: unknown;
    every_hours?: unknown;
    enabled?: unknown;
  }[];
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function intelSources(config: { intelSourcesFile: string | undefined }): IntelFeedSource[] {
  if (!config.intelSourcesFile) return [...DEFAULT_SOURCES];
  const file = readSourcesFile(config.intelSourcesFile);
  const byName = new Map<string, IntelFeedSource>(file.defaults === false ? [] : DEFAULT_SOURCES.map((s) => [s.name, s]));
  const problems: { path: string; message: string }[] = [];
  (file.sources ?? []).forEach((entry, i) => {
    const at = `sources[${i}]`;
    if (typeof entry?.name !== 'string' || !NAME.test(entry.name)) {
      problems.push({ path: `${at}.name`, message: 'must be lowercase letters, digits, _ or -' });
      return;
    }
    const base = byName.get(entry.name);
    if (entry.enabled === false) {
      byName.delete(entry.name);
      return;
    }
    const source = {
      name: entry.name,
      url: entry.url ?? base?.url,
      format: entry.format ?? base?.format,
      category: entry.category ?? base?.category,
      everySeconds: entry.every_hours === undefined ? (base?.everySeconds ?? 6 * HOUR) : Number(entry.every_hours) * HOUR,
    };
    if (typeof source.url !== 'string' || !allowedFeedUrl(source.url)) {
      problems.push({ path: `${at}.url`, message: 'must be an https URL (or http on this machine)' });
    }
    if (!FEED_FORMATS.includes(source.format as FeedFormat))
      problems.push({ path: `${at}.format`, message: `must be one of ${FEED_FORMATS.join(', ')}` });
    if (!FEED_CATEGORIES.includes(source.category as FeedCategory)) {
      problems.push({ path: `${at}.category`, message: `must be one of ${FEED_CATEGORIES.join(', ')}` });
    }
    if (!(source.everySeconds >= 60)) problems.push({ path: `${at}.every_hours`, message: 'must be a number of hours, at least 1/60' });
    byName.set(entry.name, source as IntelFeedSource);
  });
  if (problems.length > 0) throw AppError.invalid(problems, `The intel sources file ${config.intelSourcesFile} is invalid.`);
  return [...byName.values()];
}

function readSourcesFile(path: string): SourcesFile {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    throw AppError.invalid([{ path, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    const file = parsed as SourcesFile;
    if (file.sources !== undefined && !Array.isArray(file.sources)) throw new Error('"sources" is not a list');
    return file;
  } catch (err) {
    throw AppError.invalid([{ path, message: `is not a sources file: ${(err as Error).message}` }]);
  }
}
