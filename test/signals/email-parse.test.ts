// Table tests for parseEmail: what counts as a deliverable address syntax, and the parts it returns.
import { expect } from 'chai';
import { parseEmail } from '../../src/signals/email/parse-email.js';

describe('parseEmail', () => {
  const deliverable: Array<[string, { domain: string; asciiDomain: string; registrableDomain: string }]> = [
    ['jane@example.com', { domain: 'example.com', asciiDomain: 'example.com', registrableDomain: 'example.com' }],
    [
      'Jane.Doe+news@Mail.Example.CO.UK',
      { domain: 'mail.example.co.uk', asciiDomain: 'mail.example.co.uk', registrableDomain: 'example.co.uk' },
    ],
    ["o'brien_{x}!#$%&*=?^`|~@example.org", { domain: 'example.org', asciiDomain: 'example.org', registrableDomain: 'example.org' }],
    ['user@bücher.de', { domain: 'bücher.de', asciiDomain: 'xn--bcher-kva.de', registrableDomain: 'xn--bcher-kva.de' }],
    ['user@BÜCHER.de', { domain: 'bücher.de', asciiDomain: 'xn--bcher-kva.de', registrableDomain: 'xn--bcher-kva.de' }],
    ['jöhn@example.de', { domain: 'example.de', asciiDomain: 'example.de', registrableDomain: 'example.de' }],
    ['  padded@example.com \n', { domain: 'example.com', asciiDomain: 'example.com', registrableDomain: 'example.com' }],
    ['user@a-b.c-d.example.com', { domain: 'a-b.c-d.example.com', asciiDomain: 'a-b.c-d.example.com', registrableDomain: 'example.com' }],
    [`${'l'.repeat(64)}@example.com`, { domain: 'example.com', asciiDomain: 'example.com', registrableDomain: 'example.com' }],
  ];

  for (const [address, parts] of deliverable) {
    it(`accepts ${JSON.stringify(address)}`, () => {
      const parsed = parseEmail(address);
      expect(parsed, parsed.problem).to.include({ ok: true, ...parts });
    });
  }

  const malformed: Array<[string, string]> = [
    ['', 'empty'],
    ['plainaddress', 'no @'],
    ['@example.com', 'empty local part'],
    ['user@', 'empty domain'],
    ['a@b@example.com', 'two @'],
    ['"john doe"@example.com', 'quoted local part'],
    ['"john"@example.com', 'quoted local part without spaces'],
    ['john(comment)@example.com', 'comment'],
    ['John <john@example.com>', 'display name'],
    ['john . doe@example.com', 'obsolete spaced dots'],
    ['john..doe@example.com', 'doubled dot'],
    ['.john@example.com', 'leading dot'],
    ['john.@example.com', 'trailing dot'],
    ['jo hn@example.com', 'space in local part'],
    ['user@[192.0.2.1]', 'address literal'],
    ['user@192.0.2.1', 'bare IP address'],
    ['user@localhost', 'single label'],
    ['user@-example.com', 'label starting with a hyphen'],
    ['user@example-.com', 'label ending with a hyphen'],
    ['user@exa_mple.com', 'underscore in a label'],
    ['user@example..com', 'empty label'],
    ['user@example.com.', 'trailing root dot'],
    [`user@${'a'.repeat(64)}.com`, 'label of 64 characters'],
    [`${'l'.repeat(65)}@example.com`, 'local part over 64 octets'],
    [`user@${'abcdefghi.'.repeat(25)}com`, 'domain over 253 characters'],
    [`${'l'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(58)}.com`, 'address of 255 characters'],
    ['user@example.c0m', 'not a public suffix'],
    ['user@example.123', 'numeric top-level domain'],
    ['user@example.invalid', 'reserved .invalid'],
    ['user@bücher.example', 'reserved .example, even as an IDN'],
    ['user@co.uk', 'a public suffix itself'],
  ];

  for (const [address, why] of malformed) {
    it(`rejects ${JSON.stringify(address)} (${why})`, () => {
      const parsed = parseEmail(address);
      expect(parsed.ok, `${address} was accepted`).to.equal(false);
      expect(parsed.problem).to.be.a('string');
    });
  }

  it('still gives the A-label domain of a rejected IDN address', () => {
    expect(parseEmail('user@bücher.example')).to.include({
      ok: false,
      local: 'user',
      asciiDomain: 'xn--bcher-kva.example',
      registrableDomain: null,
    });
  });

  it('counts the SMTP length limits on the A-label form of an IDN domain', () => {
    // 'ü' x 45 is a 51-character A-label: 251 characters as typed, 275 on the wire.
    const label = 'ü'.repeat(45);
    const address = `${'l'.repeat(64)}@${label}.${label}.${label}.${label}.de`;
    expect(address.length).to.be.at.most(254);
    expect(parseEmail(address)).to.include({ ok: false, problem: 'ADDRESS_TOO_LONG' });
    // 63 Unicode characters make a 69-character A-label, too long for a DNS label.
    expect(parseEmail(`user@${'ü'.repeat(63)}.de`).ok).to.equal(false);
  });
});
