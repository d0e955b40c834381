// The one email normaliser: the identity an address links by in the graph, matches by on a list and
// is marked by through feedback. Two spellings that reach the same mailbox give the same string.
// validator.js knows the big providers; the small table below adds plus-tag providers it leaves
// alone. Every room calls emailIdentity (graph/event-identifiers, lists/list-values, feedback,
// lifecycle): a second spelling of this rule would split one person into two identities.
import normalizeEmailModule from 'validator/lib/normalizeEmail.js';
import { parseEmail } from './parse-email.js';

// validator's CommonJS module is the function and also carries it as `.default`; NodeNext types see
// only the latter.
const validatorNormalizeEmail = normalizeEmailModule.default;

// Providers that deliver `name+tag@` to `name@` but that validator.js does not strip (its own list covers
// Gmail/Googlemail dots and tags, Outlook/Hotmail/Live, Yahoo's `-` tags, iCloud and Yandex's aliases).
// Each from the provider's help pages on plus addressing; dots stay, as these providers keep them.
const PLUS_TAG_DOMAINS: ReadonlySet<string> = new Set([
  'fastmail.com',
  'fastmail.fm',
  'pm.me',
  'proton.me',
  'protonmail.ch',
  'protonmail.com',
  'yandex.ru',
  'zoho.com',
  'zohomail.com',
]);

export function normalizeEmail(raw: string): string | null {
  const parsed = parseEmail(raw);
  if (!parsed.ok) return null;

  // Unicode local parts are folded to one form first, so the same mailbox typed on two keyboards links.
  const local = parsed.local.normalize('NFC');
  const normalized = validatorNormalizeEmail(`${local}@${parsed.asciiDomain}`, {
    // Local parts are case-sensitive on paper and case-blind at every provider that matters.
    all_lowercase: true,
  });
  if (!normalized) return null;

  const at = normalized.lastIndexOf('@');
  const domain = normalized.slice(at + 1);
  if (!PLUS_TAG_DOMAINS.has(domain)) return normalized;
  const base = normalized.slice(0, at).split('+')[0];
  return base ? `${base}@${domain}` : normalized;
}

// The identity of any text given as an email: the normal form of a valid address, else the
// trimmed, lower-cased text (a malformed address still matches itself); undefined when blank.
export function emailIdentity(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!trimmed) return undefined;
  return normalizeEmail(trimmed) ?? trimmed.toLowerCase();
}
