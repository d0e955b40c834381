// The integrators' test fixture at the engine level: each outcome decides the verdict and its
// advice outright, above the lists, and the probe card shows card testing. (That live keys never
// carry the signal is the collector's, tested through the API in test/verdicts/test-fixtures.test.ts.)
import { expect } from 'chai';
import { ip, run } from './engine-builders.js';

describe('engine: test fixtures', () => {
  const cases = [
    ['allow', 'allow', undefined],
    ['review', 'review', undefined],
    ['block', 'block', undefined],
    ['challenge', 'review', 'challenge'],
    ['hold', 'block', 'hold'],
  ] as const;
  for (const [outcome, verdict, action] of cases) {
    it(`${outcome}: ${verdict}${action ? ` with ${action}` : ''}, whatever else fired, lists included`, () => {
      const d = run({
        eventType: 'login',
        testFixture: { outcome },
        ip: ip({ torExit: true }),
        lists: [{ list: 'block', kind: 'ip', value: '192.0.2.1' }],
      });
      expect(d.verdict).to.equal(verdict);
      expect(d.recommendedAction).to.equal(action);
      expect(d.reasons).to.deep.include({ code: 'test_fixture', detail: { outcome } });
    });
  }

  it('does nothing without a fixture', () => {
    expect(run({ eventType: 'signup' }).reasons).to.deep.equal([]);
  });

  it('shows card testing for the probe card on a checkout, with the threshold as the count', () => {
    const d = run({ eventType: 'checkout_attempt', testFixture: { cardProbe: true } });
    expect(d.verdict).to.equal('block');
    expect(d.reasons.find((r) => r.code === 'card_probe_pattern')?.detail).to.include({ attempts_10m: 5, threshold: 5 });
    expect(run({ eventType: 'signup', testFixture: { cardProbe: true } }).verdict).to.equal('allow');
  });
});
