// Splits an address into its parts and says whether mail could be delivered to it as written.
// Syntax comes from @hapi/address (RFC 5321 mailbox); the domain must sit under a real public suffix.
import { domainToASCII } from 'node:url';
import { analyzeEmail } from '@hapi/address';
import { parse as parseHost } from 'tldts';

export type ParsedEmail = {
  ok: boolean;
  local: string;
  // The domain as written (lowercase, Unicode allowed); asciiDomain is its A-label form for DNS.
  domain: string;
  asciiDomain: string;
  // eTLD+1 from the ICANN section of the Public Suffix List, e.g. `example.co.uk`.
  registrableDomain: string | null;
  // Why the address is malformed: @hapi/address's code, or one of ours below.
  problem?: string;
};

// RFC 5321 §4.5.3.1: a forward-path holds at most 256 octets including the angle brackets.
const MAX_ADDRESS = 254;
// RFC 1035 §2.3.4: 255 octets on the wire, 253 in text form.
const MAX_DOMAIN = 253;

export function parseEmail(raw: string): ParsedEmail {
  // Outer whitespace is a typing accident, not a different address; inner whitespace stays malformed.
  const address = typeof raw === 'string' ? raw.trim() : '';
  const at = address.lastIndexOf('@');
  const local = at > 0 ? address.slice(0, at) : '';
  const domain =
    at >= 0
      ? address
          .slice(at + 1)
          .normalize('NFC')
          .toLowerCase()
      : '';
  const asciiDomain = domain ? domainToASCII(domain) : '';
  const parts = { local, domain, asciiDomain, registrableDomain: null };
  const fail = (problem: string): ParsedEmail => ({ ok: false, ...parts, problem });

  // hapi rejects what RFC 5322 parsers let through but mail systems do not deliver to: quoted local
  // parts, comments, display names, address literals, obsolete forms, empty or doubled dots.
  const analysis = analyzeEmail(address, { minDomainSegments: 2 });
  if (analysis) return fail(analysis.code);
  if (!asciiDomain) return fail('DOMAIN_NOT_IDNA');
  // The SMTP limits apply to what goes on the wire, which for an IDN is the longer A-label form.
  if (asciiDomain.length > MAX_DOMAIN) return fail('DOMAIN_TOO_LONG');
  if (`${local}@${asciiDomain}`.length > MAX_ADDRESS) return fail('ADDRESS_TOO_LONG');

  // ICANN section only: reserved names (.example, .test, .localhost, .invalid) and made-up TLDs have no
  // mail, and an address directly at a suffix (`user@co.uk`) is no one's mailbox domain.
  const host = parseHost(asciiDomain);
  if (host.isIp || !host.isIcann) return fail('UNKNOWN_PUBLIC_SUFFIX');
  if (!host.domain) return fail('NO_REGISTRABLE_DOMAIN');

  return { ok: true, ...parts, registrableDomain: host.domain };
}
