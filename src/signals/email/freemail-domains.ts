// Consumer mailbox domains shared by millions of unrelated people. The domain-velocity rule ignores
// them: a burst of gmail.com signups says nothing, a burst from one company domain does.
import { domainAndParents } from './domain-and-parents.js';
import { PRIVACY_RELAY_DOMAINS } from './privacy-relay-domains.js';

// Our own short list rather than a package: the packages we checked mix in web portals, example and
// university domains (email-providers lists facebook.com, example.com), or download their list at
// install time (free-email-domains), which fails offline. Wrongly calling a company domain freemail
// hides its velocity, so the list stays to the large providers; add to it when a tenant asks.
const FREEMAIL_DOMAINS: ReadonlySet<string> = new Set([
  // Google, Microsoft, Yahoo, AOL, Apple
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'hotmail.de',
  'hotmail.it',
  'hotmail.es',
  'live.co.uk',
  'live.fr',
  'outlook.fr',
  'outlook.de',
  'yahoo.com',
  'ymail.com',
  'rocketmail.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.it',
  'yahoo.es',
  'yahoo.co.jp',
  'yahoo.com.br',
  'yahoo.co.in',
  'aol.com',
  'aim.com',
  'icloud.com',
  'me.com',
  'mac.com',
  // Privacy-minded and paid-but-personal providers
  'proton.me',
  'protonmail.com',
  'protonmail.ch',
  'pm.me',
  'tutanota.com',
  'tutanota.de',
  'tuta.io',
  'tuta.com',
  'fastmail.com',
  'fastmail.fm',
  'hey.com',
  'zoho.com',
  'zohomail.com',
  // European portals
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'gmx.at',
  'gmx.ch',
  'web.de',
  'mail.com',
  'freenet.de',
  't-online.de',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'sfr.fr',
  'libero.it',
  'virgilio.it',
  'seznam.cz',
  'wp.pl',
  'o2.pl',
  'onet.pl',
  'interia.pl',
  // Russia, Asia, Latin America
  'yandex.ru',
  'yandex.com',
  'ya.ru',
  'mail.ru',
  'bk.ru',
  'inbox.ru',
  'list.ru',
  'rambler.ru',
  'qq.com',
  '163.com',
  '126.com',
  'sina.com',
  'aliyun.com',
  'naver.com',
  'daum.net',
  'hanmail.net',
  'rediffmail.com',
  'uol.com.br',
  'bol.com.br',
  'terra.com.br',
]);

// Privacy relays count too: many unrelated people share duck.com just as they share gmail.com.
export function isFreemailDomain(domain: string, registrableDomain: string): boolean {
  return domainAndParents(domain, registrableDomain).some((name) => FREEMAIL_DOMAINS.has(name) || PRIVACY_RELAY_DOMAINS.has(name));
}
