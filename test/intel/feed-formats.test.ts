// Feed formats: each publisher's real file shape (fixtures in test/fixtures/intel/) parses to the
// exact entries the intel loader should get, bad lines are counted, and a body that is not the
// format at all (an error page, truncated or foreign JSON, an empty JSON body) is refused.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { FEED_FORMATS, FeedFormatError, parseFeed, type FeedFormat } from '../../src/intel/feed-formats.js';

const fixture = (name: string) => fs.readFileSync(path.join('test', 'fixtures', 'intel', name), 'utf8');

function refusal(format: FeedFormat, body: string): FeedFormatError {
  try {
    parseFeed(format, body);
  } catch (err) {
    expect(err).to.be.instanceOf(FeedFormatError);
    return err as FeedFormatError;
  }
  throw new Error(`${format} accepted a body it should refuse`);
}

describe('intel feed formats: the publishers’ files', () => {
  it('reads the Tor bulk exit list as one address per line, in address order', () => {
    expect(parseFeed('ip_list', fixture('tor-bulk-exit-list.txt'))).to.deep.equal({
      entries: [
        '192.0.2.15',
        '192.0.2.201',
        '198.51.100.7',
        '198.51.100.77',
        '198.51.100.203',
        '203.0.113.9',
        '203.0.113.130',
        '203.0.113.254',
      ],
      skipped: 0,
    });
  });

  it('reads Cloudflare’s ips-v4 and ips-v6 lists', () => {
    expect(parseFeed('ip_list', fixture('cloudflare-ips-v4.txt'))).to.deep.equal({
      entries: ['104.16.0.0/13', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/25', '203.0.113.128/25'],
      skipped: 0,
    });
    expect(parseFeed('ip_list', fixture('cloudflare-ips-v6.txt'))).to.deep.equal({
      entries: ['2001:db8::/32', '2001:db8:a0::/48', '2001:db8:1000::/36', '3fff::/20'],
      skipped: 0,
    });
  });

  it('reads a plain CIDR VPN list, /32 entries written as addresses', () => {
    expect(parseFeed('ip_list', fixture('vpn-cidr-list.txt'))).to.deep.equal({
      entries: [
        '45.84.120.0/22',
        '185.65.134.0/23',
        '192.0.2.0/26',
        '192.0.2.64/27',
        '192.0.2.96',
        '192.0.2.97',
        '198.51.100.16/28',
        '198.51.100.240/29',
        '203.0.113.0/24',
        '203.0.113.5',
      ],
      skipped: 0,
    });
  });

  it('reads AWS ip-ranges.json from prefixes[].ip_prefix and ipv6_prefixes[].ipv6_prefix, once per prefix', () => {
    expect(parseFeed('aws_ip_ranges', fixture('aws-ip-ranges.json'))).to.deep.equal({
      entries: [
        '3.5.140.0/22',
        '192.0.2.0/24',
        '198.51.100.0/25',
        '198.51.100.128/25',
        '203.0.113.0/24',
        '2001:db8:1234::/48',
        '2001:db8:5678:ab00::/56',
        '2600:1f14:fff:f800::/56',
      ],
      skipped: 0,
    });
  });

  it('reads Google Cloud’s cloud.json from prefixes[].ipv4Prefix and ipv6Prefix', () => {
    expect(parseFeed('gcp_cloud_json', fixture('gcp-cloud.json'))).to.deep.equal({
      entries: [
        '34.80.0.0/15',
        '192.0.2.0/24',
        '198.51.100.0/24',
        '203.0.113.64/26',
        '2001:db8:4030::/44',
        '2001:db8:4180::/44',
        '2600:1900:4030::/44',
      ],
      skipped: 0,
    });
  });

  it('reads Oracle’s public_ip_ranges.json from regions[].cidrs[].cidr', () => {
    expect(parseFeed('oracle_public_ip_ranges', fixture('oracle-public-ip-ranges.json'))).to.deep.equal({
      entries: ['129.213.8.0/21', '192.0.2.0/25', '192.0.2.128/25', '198.51.100.0/24', '203.0.113.0/24'],
      skipped: 0,
    });
  });

  it('reads the prefix column of DigitalOcean’s geofeed, rows with no location included', () => {
    expect(parseFeed('geofeed_csv', fixture('digitalocean-geofeed.csv'))).to.deep.equal({
      entries: [
        '5.101.96.0/21',
        '168.144.52.0/22',
        '192.0.2.0/24',
        '198.51.100.0/25',
        '198.51.100.128/25',
        '203.0.113.0/24',
        '2001:db8:1:d0::/64',
        '2001:db8:2:d0::/64',
        '2001:db8:3::/48',
      ],
      skipped: 0,
    });
  });

  it('reads a geofeed with # comment lines and blank lines (Linode’s shape)', () => {
    expect(parseFeed('geofeed_csv', fixture('linode-geofeed.csv'))).to.deep.equal({
      entries: [
        '192.0.2.0/24',
        '198.51.100.0/24',
        '203.0.113.0/24',
        '203.0.113.128/25',
        '2001:db8:c00::/40',
        '2001:db8:d00::/40',
        '2001:db8:e00::/40',
      ],
      skipped: 0,
    });
  });

  it('reads the disposable-email-domains blocklist, punycode kept as written', () => {
    expect(parseFeed('domain_list', fixture('disposable-email-blocklist.conf'))).to.deep.equal({
      entries: [
        '0-mail.example',
        '10minute-inbox.example',
        'burner-box.test',
        'dropmail.example',
        'fakeinbox.test',
        'mailcatch.example',
        'spamgourmet.test',
        'temp-mail.example',
        'throwaway.example',
        'trashmail.test',
        'xn--mll-hoa.example',
        'yopmail.test',
      ],
      skipped: 0,
    });
  });

  it('reads IANA’s RDAP dns.json as one "<tld> <base url>" per TLD, https preferred, no trailing slash', () => {
    expect(parseFeed('rdap_bootstrap', fixture('rdap-dns.json'))).to.deep.equal({
      entries: [
        'com https://rdap.registry.example/com/v1',
        'cz https://rdap.nic.example',
        'net https://rdap.registry.example/com/v1',
        'org https://rdap.org.example/rdap',
        'uz http://cctld.example:9000',
        'xn--p1ai https://rdap.tcinet.example',
      ],
      skipped: 0,
    });
  });
});

describe('intel feed formats: bodies that are not the format', () => {
  it('refuses an HTML error page served as any format', () => {
    const page = fixture('bad-html-error-page.html');
    for (const format of FEED_FORMATS) expect(refusal(format, page).format).to.equal(format);
  });

  it('refuses truncated JSON', () => {
    expect(refusal('aws_ip_ranges', fixture('bad-truncated.json')).message).to.match(/^aws_ip_ranges: not JSON/);
  });

  it('refuses an AWS-shaped file whose prefixes are not at the top level', () => {
    expect(refusal('aws_ip_ranges', fixture('bad-aws-unexpected-top-level.json')).reason).to.equal('no "prefixes" array at the top level');
  });

  it('refuses an empty body for every JSON format, and reads it as an empty list for the line formats', () => {
    const empty = fixture('bad-empty.txt');
    for (const format of ['aws_ip_ranges', 'gcp_cloud_json', 'oracle_public_ip_ranges', 'rdap_bootstrap'] as const) {
      expect(refusal(format, empty).reason).to.equal('empty body');
    }
    for (const format of ['ip_list', 'geofeed_csv', 'domain_list'] as const) {
      expect(parseFeed(format, empty)).to.deep.equal({ entries: [], skipped: 0 });
    }
  });

  it('refuses one publisher’s JSON given as another’s', () => {
    expect(refusal('gcp_cloud_json', fixture('aws-ip-ranges.json')).reason).to.equal('no item has an ipv4Prefix or ipv6Prefix');
    expect(refusal('aws_ip_ranges', fixture('gcp-cloud.json')).reason).to.equal('no "ipv6_prefixes" array at the top level');
    expect(refusal('oracle_public_ip_ranges', fixture('gcp-cloud.json')).reason).to.equal('no "regions" array at the top level');
    expect(refusal('rdap_bootstrap', fixture('oracle-public-ip-ranges.json')).reason).to.equal('no "services" array at the top level');
  });

  it('refuses JSON whose top level is not an object', () => {
    expect(refusal('aws_ip_ranges', '[{"ip_prefix":"192.0.2.0/24"}]').reason).to.equal('JSON, but not an object at the top level');
    expect(refusal('rdap_bootstrap', 'null').reason).to.equal('JSON, but not an object at the top level');
  });

  it('refuses a line list in which no line is usable, and a JSON list in which no item is', () => {
    expect(refusal('ip_list', 'Service Unavailable\nTry again later\n').reason).to.equal('no line is an address or a CIDR');
    expect(refusal('geofeed_csv', 'ip_prefix,alpha2code,region,city,postal_code\n').reason).to.equal(
      'no row starts with an address or a CIDR',
    );
    expect(refusal('domain_list', 'localhost\n127.0.0.1\n').reason).to.equal('no line is a domain name');
    expect(refusal('rdap_bootstrap', '{"version":"1.0","services":[["com","https://x.example/"]]}').reason).to.match(/no service/);
  });
});

describe('intel feed formats: normalization and counting', () => {
  it('drops host bits and collapses spellings of one network into one entry', () => {
    const body = '10.1.2.3/8\n10.0.0.0/8\n2001:0DB8:0000:0000:0000:0000:0000:0001/32\n2001:db8::/32\n192.0.2.7/32\n192.0.2.7\n';
    expect(parseFeed('ip_list', body)).to.deep.equal({ entries: ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'], skipped: 0 });
  });

  it('writes IPv4-mapped IPv6 as IPv4, as the intel loader matches it', () => {
    const body = '::ffff:203.0.113.7\n::ffff:198.51.100.0/120\n::ffff:c000:0200/120\n';
    expect(parseFeed('ip_list', body)).to.deep.equal({ entries: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.7'], skipped: 0 });
  });

  it('writes IPv6 in RFC 5952 form: lowercase, no leading zeros, the first longest zero run as ::', () => {
    const body = '2001:DB8:0:0:1:0:0:1\n2001:db8:0:1:0:0:0:1\n::\n::1\n2001:db8:1:2:3:4:5:6\n2001:db8::1:0:0:0/128\n';
    expect(parseFeed('ip_list', body).entries).to.deep.equal([
      '::',
      '::1',
      '2001:db8:0:0:1::',
      '2001:db8::1:0:0:1',
      '2001:db8:0:1::1',
      '2001:db8:1:2:3:4:5:6',
    ]);
  });

  it('ignores # and ; comments, blank lines, CR line ends and a byte-order mark, and counts bad lines', () => {
    const body =
      '\ufeff# exits\r\n192.0.2.1\r\n\r\n198.51.100.0/24 ; SBL 1\r\n  203.0.113.0/24   # inline\r\nnot-an-address\r\n10.0.0.0/33\r\n1.2.3.4 5.6.7.8\r\n127.1\r\n';
    expect(parseFeed('ip_list', body)).to.deep.equal({
      entries: ['192.0.2.1', '198.51.100.0/24', '203.0.113.0/24'],
      skipped: 4,
    });
  });

  it('counts the bad rows of a geofeed, a header row without # among them, and reads quoted or spaced prefixes', () => {
    const body =
      'ip_prefix,alpha2code,region,city,postal_code\n"192.0.2.0/24",US,US-CA,San Jose,\n 198.51.100.0/24 , FR, FR-75, Paris,\nnot-a-prefix,FR,,,\n203.0.113.0/24,FR,BOGUS,,  # trailing\n';
    expect(parseFeed('geofeed_csv', body)).to.deep.equal({
      entries: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
      skipped: 2,
    });
  });

  it('counts the unusable items of the JSON formats', () => {
    const aws = JSON.stringify({
      syncToken: '1',
      createDate: '2026-11-20-13-01-02',
      prefixes: [{ ip_prefix: '192.0.2.0/24' }, { ip_prefix: 'bogus' }, { region: 'us-east-1' }, 'not an object'],
      ipv6_prefixes: [{ ipv6_prefix: '2001:db8::/32' }, { ip_prefix: '2001:db8:1::/48' }],
    });
    expect(parseFeed('aws_ip_ranges', aws)).to.deep.equal({ entries: ['192.0.2.0/24', '2001:db8::/32'], skipped: 4 });

    const gcp = JSON.stringify({ prefixes: [{ ipv4Prefix: '192.0.2.0/24' }, { scope: 'us-east1' }, { ipv6Prefix: 7 }] });
    expect(parseFeed('gcp_cloud_json', gcp)).to.deep.equal({ entries: ['192.0.2.0/24'], skipped: 2 });

    const oracle = JSON.stringify({ regions: [{ region: 'a', cidrs: [{ cidr: '192.0.2.0/24' }, { cidr: '' }] }, { region: 'b' }] });
    expect(parseFeed('oracle_public_ip_ranges', oracle)).to.deep.equal({ entries: ['192.0.2.0/24'], skipped: 2 });
  });

  it('lowercases domains and skips what is not a mail domain', () => {
    const body =
      'Mailinator.EXAMPLE\nmailinator.example.\n# a comment\n\ncom\nunder_score.example\n-dash.example\n192.0.2.1\nmüller.example\nsub.domain.example\n';
    expect(parseFeed('domain_list', body)).to.deep.equal({ entries: ['mailinator.example', 'sub.domain.example'], skipped: 5 });
  });

  it('keeps the first base URL of a TLD listed twice, and skips unusable services and labels', () => {
    const body = JSON.stringify({
      version: '1.0',
      publication: '2026-11-18T19:00:01Z',
      services: [
        [['EXAMPLE'], ['https://rdap.one.example/']],
        [['example', 'bad label'], ['https://rdap.two.example/']],
        [['test'], ['ftp://rdap.test.example/', 'https://user:pw@rdap.test.example/']],
        [['lone']],
        [['invalid'], ['http://rdap.invalid.example/', 'https://rdap.invalid.example/v1//']],
      ],
    });
    expect(parseFeed('rdap_bootstrap', body)).to.deep.equal({
      entries: ['example https://rdap.one.example', 'invalid https://rdap.invalid.example/v1'],
      skipped: 4,
    });
  });

  it('parses 200,000 lines of ip_list', () => {
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) lines.push(`${10 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}.0/24`);
    const parsed = parseFeed('ip_list', lines.join('\n'));
    expect(parsed.entries).to.have.length(200_000);
    expect(parsed.entries[0]).to.equal('10.0.0.0/24');
    expect(parsed.entries[199_999]).to.equal('13.13.63.0/24');
  });
});
