// Domains of privacy relays: a real person's forwarding alias, not a throwaway inbox. Some disposable
// lists carry them (mailchecker lists duck.com, mozmail.com, simplelogin.com, addy.io), so they are
// excluded from the disposable verdict by name; a relay user is as reachable as the mailbox behind it.
import { domainAndParents } from './domain-and-parents.js';

export const PRIVACY_RELAY_DOMAINS: ReadonlySet<string> = new Set([
  // DuckDuckGo Email Protection
  'duck.com',
  // Firefox Relay (relay.firefox.com was its first domain)
  'mozmail.com',
  'relay.firefox.com',
  // Sign in with Apple's Hide My Email
  'privaterelay.appleid.com',
  // SimpleLogin (also behind Proton Pass aliases)
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'aleeas.com',
  'slmail.me',
  'silomails.com',
  'slmails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  'passinbox.com',
  'passmail.com',
  'passmail.net',
  'passfwd.com',
  // addy.io, formerly AnonAddy (users also get <name>.anonaddy.com subdomains)
  'addy.io',
  'anonaddy.com',
  'anonaddy.me',
]);

// True when the domain, or any parent of it down to its registrable domain, is a relay.
export function isPrivacyRelayDomain(domain: string, registrableDomain: string): boolean {
  return domainAndParents(domain, registrableDomain).some((name) => PRIVACY_RELAY_DOMAINS.has(name));
}
