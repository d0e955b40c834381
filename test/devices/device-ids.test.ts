// Which components make the device id (README "Device tokens"), tested on real FingerprintJS 5
// component sets recorded from Debian's Chromium: stable across what changes between visits of
// one browser, different between devices.
import { expect } from 'chai';
import { createApp } from '../../src/app.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { deviceIdOf, issueToken, recorded, type Recorded } from '../support/device-tokens.js';

const deps = testDeps();
const app = createApp(deps);

describe('device ids from FingerprintJS components', () => {
  let tenant: TestTenant;
  const idOf = async (body: object, key = tenant.keys.pk_test) => deviceIdOf(await issueToken(app, key, body));
  const idOfRecorded = (name: Recorded) => idOf(recorded(name));
  before(async () => {
    tenant = await aTenant(deps);
  });

  it('gives two page loads of one browser the same id, though FingerprintJS timings differ', async () => {
    const [a, b] = [recorded('desktop-load-1').components, recorded('desktop-load-2').components];
    const changedTimings = Object.keys(a).filter((name) => a[name]!.duration !== b[name]!.duration);
    expect(changedTimings.length, 'the recorded loads differ in their durations').to.be.greaterThan(5);
    expect(await idOfRecorded('desktop-load-2')).to.equal(await idOfRecorded('desktop-load-1'));
  });

  it('keeps the id when the window is resized and when timezone and language change', async () => {
    const base = await idOfRecorded('desktop-load-1');
    expect(await idOfRecorded('desktop-resized')).to.equal(base);
    expect(await idOfRecorded('desktop-tokyo-ja')).to.equal(base);
  });

  it('gives devices that differ in platform, hardware, GPU, fonts or pixel density different ids', async () => {
    const names: Recorded[] = ['desktop-load-1', 'phone-touch', 'hidpi-laptop', 'windows-16-cores', 'no-webgl', 'other-fonts'];
    const ids = await Promise.all(names.map(idOfRecorded));
    expect(new Set(ids).size, JSON.stringify(Object.fromEntries(names.map((n, i) => [n, ids[i]])))).to.equal(names.length);
  });

  it('drops the operating-system version from userAgentData, and keeps the rest of it', async () => {
    const body = recorded('windows-16-cores');
    const agent = body.components.userAgentData as { value: Record<string, unknown>; duration: number };
    const withOs = (platformVersion: string) => ({
      components: { ...body.components, userAgentData: { ...agent, value: { ...agent.value, platformVersion } } },
    });
    expect(await idOf(withOs('15.0.1'))).to.equal(await idOf(withOs('15.0.0')));
    const edge = { components: { ...body.components, userAgentData: { ...agent, value: { ...agent.value, brands: ['Microsoft Edge'] } } } };
    expect(await idOf(edge), 'Chrome and Edge on one machine are two browsers').to.not.equal(await idOf(withOs('15.0.0')));
  });

  it('hashes FingerprintJS error and undefined components without their timings', async () => {
    const id = await idOf({
      components: { canvas: { value: 'c', duration: 3 }, audio: { error: {}, duration: 4 }, osCpu: { duration: 0 } },
    });
    expect(
      await idOf({
        components: { canvas: { value: 'c', duration: 9 }, audio: { error: { message: 'x' }, duration: 1 }, osCpu: { duration: 7 } },
      }),
    ).to.equal(id);
  });

  it('hashes a component of any other shape as given', async () => {
    const id = await idOf({ components: { canvas: { value: 'c', duration: 3, extra: 1 } } });
    expect(await idOf({ components: { canvas: { value: 'c', duration: 4, extra: 1 } } })).to.not.equal(id);
    expect(await idOf({ components: { screen: '1920x1080', gpu: 'x' } })).to.not.equal(
      await idOf({ components: { screen: '1920x1080', gpu: 'y' } }),
    );
  });

  it('makes one browser a different device in another tenant and in the other mode', async () => {
    const other = await aTenant(deps);
    const body = recorded('desktop-load-1');
    const ids = await Promise.all([idOf(body), idOf(body, tenant.keys.pk_live), idOf(body, other.keys.pk_test)]);
    expect(new Set(ids).size).to.equal(3);
  });
});
