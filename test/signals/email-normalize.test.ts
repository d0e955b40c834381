// Table tests for normalizeEmail: spellings of one mailbox give one identity, different mailboxes do not.
import { expect } from 'chai';
import { normalizeEmail } from '../../src/signals/email/normalize-email.js';

describe('normalizeEmail', () => {
  const cases: Array<[string, string, string]> = [
    ['Jane.Doe+promo@Gmail.com', 'janedoe@gmail.com', 'Gmail ignores dots and plus-tags'],
    ['j.a.n.e.doe@googlemail.com', 'janedoe@gmail.com', 'googlemail.com is gmail.com'],
    ['Jane.Doe+shop@outlook.com', 'jane.doe@outlook.com', 'Outlook drops plus-tags but keeps dots'],
    ['jane.doe+x@hotmail.com', 'jane.doe@hotmail.com', 'Hotmail drops plus-tags'],
    ['jane.doe-alias@yahoo.com', 'jane.doe@yahoo.com', 'Yahoo disposable addresses use a hyphen'],
    ['jane+news@icloud.com', 'jane@icloud.com', 'iCloud drops plus-tags'],
    ['jane+news@proton.me', 'jane@proton.me', 'Proton drops plus-tags (our table)'],
    ['Jane.Doe+x@FastMail.com', 'jane.doe@fastmail.com', 'Fastmail drops plus-tags (our table)'],
    ['jane+x@ya.ru', 'jane@yandex.ru', 'Yandex aliases and plus-tags'],
    ['Jane.Doe+x@Example.COM', 'jane.doe+x@example.com', 'an unknown provider only loses case'],
    ['  jane@example.com ', 'jane@example.com', 'outer whitespace'],
    ['jane@Bücher.de', 'jane@xn--bcher-kva.de', 'IDN domains link in their A-label form'],
    ['jane@xn--bcher-kva.de', 'jane@xn--bcher-kva.de', 'the A-label form links to the same identity'],
  ];

  for (const [raw, expected, why] of cases) {
    it(`${why}: ${raw} → ${expected}`, () => {
      expect(normalizeEmail(raw)).to.equal(expected);
    });
  }

  it('keeps different Outlook mailboxes apart even though Gmail would merge them', () => {
    expect(normalizeEmail('jane.doe@outlook.com')).not.to.equal(normalizeEmail('janedoe@outlook.com'));
  });

  for (const raw of ['not-an-address', '"quoted"@gmail.com', 'jane@localhost', '']) {
    it(`gives null for the malformed ${JSON.stringify(raw)}`, () => {
      expect(normalizeEmail(raw)).to.equal(null);
    });
  }
});
