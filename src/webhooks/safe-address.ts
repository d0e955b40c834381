// Where webhooks may go (SSRF): http(s) URLs only, and, unless WEBHOOK_ALLOW_PRIVATE is on, only
// hosts whose every resolved address is public unicast: no loopback, private, link-local (the
// cloud metadata address 169.254.169.254 among them), unique-local, CGNAT, multicast or reserved
// address. Checked at `webhook set` and again at every delivery: the delivery connects to the
// very address this lookup approved, so a DNS answer that changes in between cannot slip past.
import dns from 'node:dns';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

export function checkWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalid([{ path: '/url', message: 'is not a URL' }], `Not a URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw AppError.invalid([{ path: '/url', message: 'must be http or https' }], 'Webhook URLs must use http or https.');
  }
  if (url.username || url.password) {
    throw AppError.invalid([{ path: '/url', message: 'must not carry credentials' }], 'Webhook URLs must not carry credentials.');
  }
  return url;
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

// A dns.lookup for the delivery's connection: resolves, refuses a non-public address with an
// error the attempt records, and hands the socket the address it checked.
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (refused || list.length === 0) {
        const error: NodeJS.ErrnoException = new Error(
          `refused: ${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address`,
        );
        error.code = 'EWEBHOOKADDRESS';
        return callback(error, []);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

// At `webhook set`: the host must resolve, and only to public addresses (unless allowed).
export async function checkWebhookHost(url: URL, allowPrivate: boolean): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch (err) {
    throw AppError.invalid(
      [{ path: '/url', message: 'host does not resolve' }],
      `The webhook host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  const refused = addresses.find((a) => !allowPrivate && !isPublicAddress(a.address));
  if (refused) {
    throw AppError.invalid(
      [{ path: '/url', message: 'resolves to a non-public address' }],
      `The webhook host ${host} resolves to ${refused.address}, a loopback, private, link-local or reserved address. Set WEBHOOK_ALLOW_PRIVATE=true only for local development.`,
    );
  }
}
