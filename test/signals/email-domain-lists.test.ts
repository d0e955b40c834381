// Table tests for the domain lists: disposable providers, privacy relays that are never disposable,
// and the freemail domains the domain-velocity rule ignores.
import { expect } from 'chai';
import { isDisposableDomain } from '../../src/signals/email/disposable-domains.js';
import { isFreemailDomain } from '../../src/signals/email/freemail-domains.js';
import { PRIVACY_RELAY_DOMAINS } from '../../src/signals/email/privacy-relay-domains.js';

describe('disposable email domains', () => {
  const cases: Array<[string, string, boolean]> = [
    ['mailinator.com', 'mailinator.com', true],
    ['guerrillamail.com', 'guerrillamail.com', true],
    ['yopmail.com', 'yopmail.com', true],
    // A subdomain of a listed provider is caught through its registrable domain.
    ['inbox.mailinator.com', 'mailinator.com', true],
    // A listed host under a shared dynamic-DNS suffix is caught by its full name, not the suffix's owner.
    ['0-mailer.dynv6.net', 'dynv6.net', true],
    ['other-host.dynv6.net', 'dynv6.net', false],
    ['gmail.com', 'gmail.com', false],
    ['example.com', 'example.com', false],
  ];
  for (const [domain, registrable, disposable] of cases) {
    it(`${domain} is ${disposable ? '' : 'not '}disposable`, () => {
      expect(isDisposableDomain(domain, registrable)).to.equal(disposable);
    });
  }

  // A list that names every relay, as some published lists do: the exclusion must still win.
  const listNamingRelays = new Set(['mailinator.com', ...PRIVACY_RELAY_DOMAINS]);
  const relays: Array<[string, string]> = [
    ['duck.com', 'duck.com'],
    ['mozmail.com', 'mozmail.com'],
    ['relay.firefox.com', 'firefox.com'],
    ['privaterelay.appleid.com', 'appleid.com'],
    ['simplelogin.com', 'simplelogin.com'],
    ['aleeas.com', 'aleeas.com'],
    ['addy.io', 'addy.io'],
    ['jane.anonaddy.com', 'anonaddy.com'],
  ];
  for (const [domain, registrable] of relays) {
    it(`never calls the privacy relay ${domain} disposable, even when the list names it`, () => {
      expect(isDisposableDomain(domain, registrable, listNamingRelays)).to.equal(false);
      expect(isDisposableDomain(domain, registrable)).to.equal(false);
    });
  }

  it('still uses a list that names relays for everything else', () => {
    expect(isDisposableDomain('mailinator.com', 'mailinator.com', listNamingRelays)).to.equal(true);
  });
});

describe('freemail domains', () => {
  const cases: Array<[string, string, boolean]> = [
    ['gmail.com', 'gmail.com', true],
    ['outlook.com', 'outlook.com', true],
    ['yahoo.co.uk', 'yahoo.co.uk', true],
    ['proton.me', 'proton.me', true],
    // Relays are shared by unrelated people just like the big providers.
    ['duck.com', 'duck.com', true],
    ['privaterelay.appleid.com', 'appleid.com', true],
    ['acme-corp.com', 'acme-corp.com', false],
    ['mail.acme-corp.com', 'acme-corp.com', false],
    ['example.com', 'example.com', false],
  ];
  for (const [domain, registrable, freemail] of cases) {
    it(`${domain} is ${freemail ? '' : 'not '}freemail`, () => {
      expect(isFreemailDomain(domain, registrable)).to.equal(freemail);
    });
  }
});
