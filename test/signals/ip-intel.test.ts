// IP intelligence: file format, v4/v6 matching at range edges, reloads, and the lookup structure
// checked against a brute-force scan of 100k generated ranges. Every test writes its own data dir.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIpIntel, DEFAULT_INTEL_DIR, installSighupReload, type IpIntelLogger } from '../../src/signals/ip/ip-intel.js';

const made: string[] = [];
function anIntelDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'doorman-intel-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function aLogger() {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const logger: IpIntelLogger = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
  };
  return { logger, lines };
}

async function loaded(files: Record<string, string>) {
  const intel = createIpIntel({ dir: anIntelDir(files) });
  await intel.reload();
  return intel;
}

const dc = (intel: { lookup(ip: string): { datacenter: boolean } }, ip: string) => intel.lookup(ip).datacenter;

describe('IP intelligence lookups', () => {
  it('matches an IPv4 CIDR from its first to its last address and nothing either side', async () => {
    const intel = await loaded({ 'datacenter.txt': '198.51.100.0/24\n' });
    expect(['198.51.99.255', '198.51.100.0', '198.51.100.77', '198.51.100.255', '198.51.101.0'].map((ip) => dc(intel, ip))).to.deep.equal([
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('matches an IPv6 CIDR at its edges', async () => {
    const intel = await loaded({ 'datacenter.txt': '2001:db8:aa00::/40\n' });
    const probes = [
      '2001:db8:a9ff:ffff:ffff:ffff:ffff:ffff',
      '2001:db8:aa00::',
      '2001:db8:aaff:ffff:ffff:ffff:ffff:ffff',
      '2001:db8:ab00::',
    ];
    expect(probes.map((ip) => dc(intel, ip))).to.deep.equal([false, true, true, false]);
  });

  it('matches single addresses exactly, in either family', async () => {
    const intel = await loaded({ 'tor_exit.txt': '203.0.113.7\n2001:db8::7\n' });
    expect(
      ['203.0.113.6', '203.0.113.7', '203.0.113.8', '2001:db8::6', '2001:db8::7', '2001:db8::8'].map((ip) => intel.lookup(ip).tor_exit),
    ).to.deep.equal([false, true, false, false, true, false]);
  });

  it('treats IPv4-mapped IPv6 as IPv4, in lookups and in files', async () => {
    const intel = await loaded({ 'proxy.txt': '203.0.113.7\n::ffff:198.51.100.0/120\n' });
    expect(intel.lookup('::ffff:203.0.113.7').proxy).to.equal(true);
    expect(intel.lookup('::FFFF:cb00:7107').proxy).to.equal(true);
    expect(intel.lookup('198.51.100.255').proxy).to.equal(true);
    expect(intel.lookup('::ffff:198.51.101.0').proxy).to.equal(false);
  });

  it('merges overlapping, nested and adjacent ranges without losing or adding addresses', async () => {
    const intel = await loaded({ 'datacenter.txt': '10.0.0.0/9\n10.64.0.0/10\n10.128.0.0/9\n10.200.0.1\n12.0.0.0/16\n12.0.128.0/17\n' });
    expect(
      ['9.255.255.255', '10.0.0.0', '10.127.255.255', '10.128.0.0', '10.255.255.255', '11.0.0.0', '12.0.255.255', '12.1.0.0'].map((ip) =>
        dc(intel, ip),
      ),
    ).to.deep.equal([false, true, true, true, true, false, true, false]);
  });

  it('keeps the three categories apart', async () => {
    const intel = await loaded({ 'tor_exit.txt': '192.0.2.1\n', 'proxy.txt': '192.0.2.2\n', 'datacenter.txt': '192.0.2.0/24\n' });
    expect(intel.lookup('192.0.2.1')).to.deep.equal({ tor_exit: true, proxy: false, datacenter: true });
    expect(intel.lookup('192.0.2.2')).to.deep.equal({ tor_exit: false, proxy: true, datacenter: true });
  });

  it('answers all false, without throwing, for anything that is not an address', async () => {
    const intel = await loaded({ 'datacenter.txt': '0.0.0.0/0\n::/0\n' });
    for (const junk of ['', 'nope', '127.1', '0x7f.0.0.1', '2130706433', '1.2.3.4/8', ' 1.2.3.4', '1.2.3.256', null, 42]) {
      expect(intel.lookup(junk as string)).to.deep.equal({ tor_exit: false, proxy: false, datacenter: false });
    }
    expect(intel.lookup('1.2.3.4').datacenter).to.equal(true);
  });

  it('answers all false before the first load', () => {
    const intel = createIpIntel({ dir: anIntelDir({ 'tor_exit.txt': '192.0.2.1\n' }) });
    expect(intel.lookup('192.0.2.1').tor_exit).to.equal(false);
    expect(intel.stats().loadedAt).to.equal(null);
  });
});

describe('IP intelligence files', () => {
  it('skips and counts bad lines, ignores comments and blanks, and logs where the bad lines are', async () => {
    const { logger, lines } = aLogger();
    const text = '# header\n\n192.0.2.1  # inline comment\nnot-an-ip\n192.0.2.0/33\n   \n2001:db8::/32\n1.2.3.4 5.6.7.8\n';
    const intel = createIpIntel({ dir: anIntelDir({ 'proxy.txt': text }), logger });
    const result = await intel.reload();
    expect(result.counts).to.deep.equal({ tor_exit: 0, proxy: 2, datacenter: 0 });
    expect(result.skipped).to.deep.equal({ tor_exit: 0, proxy: 3, datacenter: 0 });
    expect(intel.lookup('192.0.2.1').proxy).to.equal(true);
    const warn = lines.find((l) => l.level === 'warn');
    expect(warn?.obj).to.include({ category: 'proxy', skipped: 3 }).and.to.have.deep.property('firstBadLines', [4, 5, 8]);
    expect(lines.find((l) => l.level === 'info')?.obj).to.have.property('counts');
  });

  it('reads extra *.txt files from <category>.d/ and ignores hidden and other files', async () => {
    const intel = await loaded({
      'tor_exit.d/a.txt': '192.0.2.10\n',
      'tor_exit.d/b.txt': '192.0.2.11\n',
      'tor_exit.d/.b.txt.swp': '192.0.2.12\n',
      'tor_exit.d/notes.md': '192.0.2.13\n',
    });
    expect(['192.0.2.10', '192.0.2.11', '192.0.2.12', '192.0.2.13'].map((ip) => intel.lookup(ip).tor_exit)).to.deep.equal([
      true,
      true,
      false,
      false,
    ]);
    expect(intel.stats().counts.tor_exit).to.equal(2);
  });

  it('adds entries from extra sources', async () => {
    const source = { name: 'test-source', category: 'proxy' as const, read: async () => '203.0.113.0/28\nbad\n' };
    const intel = createIpIntel({ dir: anIntelDir({}), extraSources: [source] });
    const result = await intel.reload();
    expect(intel.lookup('203.0.113.15').proxy).to.equal(true);
    expect(result.skipped.proxy).to.equal(1);
  });

  it('loads the shipped starter data without a bad line', async () => {
    const intel = createIpIntel({ dir: DEFAULT_INTEL_DIR });
    const result = await intel.reload();
    expect(result.skipped).to.deep.equal({ tor_exit: 0, proxy: 0, datacenter: 0 });
    expect(result.counts.datacenter).to.be.greaterThan(50);
    expect(dc(intel, '5.9.10.11')).to.equal(true);
    expect(dc(intel, '2a01:4f8:c0c:1::1')).to.equal(true);
    expect(dc(intel, '192.0.2.1')).to.equal(false);
  });
});

describe('IP intelligence reloads', () => {
  it('picks up a changed file without a restart', async () => {
    const dir = anIntelDir({ 'datacenter.txt': '192.0.2.0/24\n' });
    const intel = createIpIntel({ dir });
    await intel.reload();
    writeFileSync(join(dir, 'datacenter.txt'), '198.51.100.0/24\n');
    const before = intel.lookup('198.51.100.1').datacenter;
    await intel.reload();
    expect([before, dc(intel, '198.51.100.1'), dc(intel, '192.0.2.1')]).to.deep.equal([false, true, false]);
  });

  it('keeps serving the old data until a reload has finished building the new', async () => {
    const dir = anIntelDir({ 'datacenter.txt': '192.0.2.0/24\n' });
    const intel = createIpIntel({ dir });
    await intel.reload();
    writeFileSync(join(dir, 'datacenter.txt'), '198.51.100.0/24\n');
    const pending = intel.reload();
    expect([dc(intel, '192.0.2.1'), dc(intel, '198.51.100.1')]).to.deep.equal([true, false]);
    await pending;
    expect([dc(intel, '192.0.2.1'), dc(intel, '198.51.100.1')]).to.deep.equal([false, true]);
  });

  it('rejects a failed reload and keeps the previous data and stats', async () => {
    const { logger, lines } = aLogger();
    const dir = anIntelDir({ 'tor_exit.txt': '192.0.2.1\n' });
    const intel = createIpIntel({ dir, logger });
    const first = await intel.reload();
    rmSync(dir, { recursive: true });
    const failure = await intel.reload().then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(Error);
    expect(intel.lookup('192.0.2.1').tor_exit).to.equal(true);
    expect(intel.stats()).to.deep.equal(first);
    expect(lines.at(-1)).to.include({ level: 'warn' });
  });

  it('reloads on SIGHUP once installed, and stops when uninstalled', async () => {
    const dir = anIntelDir({ 'proxy.txt': '192.0.2.1\n' });
    const intel = createIpIntel({ dir });
    await intel.reload();
    const signals = new EventEmitter();
    const uninstall = installSighupReload(intel, signals);
    writeFileSync(join(dir, 'proxy.txt'), '192.0.2.2\n');
    signals.emit('SIGHUP');
    const deadline = Date.now() + 5000;
    while (!intel.lookup('192.0.2.2').proxy && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(intel.lookup('192.0.2.2').proxy).to.equal(true);
    uninstall();
    expect(signals.listenerCount('SIGHUP')).to.equal(0);
  });
});

describe('IP intelligence lookup structure', () => {
  // A seeded generator, so a failure replays; the reference is a plain scan of every range.
  function seeded(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
  }
  const u32 = (rand: () => number) => BigInt(Math.floor(rand() * 2 ** 32));
  const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join('.');
  const v6Text = (n: bigint) => [...Array(8).keys()].map((i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');

  function generate(rand: () => number, count: number, bits: bigint, minPrefix: number) {
    const ranges: { first: bigint; last: bigint }[] = [];
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      let value = 0n;
      for (let w = 0n; w < bits / 32n; w++) value = (value << 32n) | u32(rand);
      const prefix = BigInt(minPrefix + Math.floor(rand() * (Number(bits) - minPrefix + 1)));
      const host = (1n << (bits - prefix)) - 1n;
      const first = value & ~host;
      ranges.push({ first, last: first | host });
      lines.push(`${(bits === 32n ? v4Text : v6Text)(first)}/${prefix}`);
    }
    return { ranges, text: lines.join('\n') };
  }

  function probesFor(rand: () => number, ranges: { first: bigint; last: bigint }[], bits: bigint, count: number): bigint[] {
    const max = (1n << bits) - 1n;
    const probes: bigint[] = [];
    for (let i = 0; i < count; i++) {
      const r = ranges[Math.floor(rand() * ranges.length)]!;
      probes.push(r.first, r.last, r.first - 1n, r.last + 1n);
      let random = 0n;
      for (let w = 0n; w < bits / 32n; w++) random = (random << 32n) | u32(rand);
      probes.push(random);
    }
    return probes.filter((p) => p >= 0n && p <= max);
  }

  it('answers like a scan of every range for 100k IPv4 and 100k IPv6 ranges', async function () {
    this.timeout(60_000);
    const rand = seeded(20261121);
    // Prefixes long enough that most random probes miss: both answers get exercised.
    const v4 = generate(rand, 100_000, 32n, 18);
    const v6 = generate(rand, 100_000, 128n, 40);
    const intel = await loaded({ 'datacenter.txt': v4.text, 'datacenter.d/v6.txt': v6.text });
    expect(intel.stats().counts.datacenter).to.equal(200_000);
    let hits = 0;
    let misses = 0;
    for (const [family, set] of [
      [4, v4],
      [6, v6],
    ] as const) {
      // IPv4 bounds fit a double exactly, which keeps the 100k-range scan quick; IPv6 stays bigint.
      const firsts4 = Float64Array.from(set.ranges, (r) => Number(r.first));
      const lasts4 = Float64Array.from(set.ranges, (r) => Number(r.last));
      const inScan = (probe: bigint): boolean => {
        if (family === 4) {
          const n = Number(probe);
          for (let i = 0; i < firsts4.length; i++) if (firsts4[i]! <= n && n <= lasts4[i]!) return true;
          return false;
        }
        return set.ranges.some((r) => r.first <= probe && probe <= r.last);
      };
      const text = family === 4 ? v4Text : v6Text;
      for (const probe of probesFor(rand, set.ranges, family === 4 ? 32n : 128n, family === 4 ? 400 : 150)) {
        const expected = inScan(probe);
        const actual = dc(intel, text(probe));
        if (actual !== expected) expect.fail(`${text(probe)}: got ${actual}, scan says ${expected}`);
        if (expected) hits++;
        else misses++;
      }
    }
    expect(hits).to.be.greaterThan(500);
    expect(misses).to.be.greaterThan(500);
  });
});
