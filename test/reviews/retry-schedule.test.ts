// The webhook retry schedule, computed without waiting: every wait with its jitter bounds, the
// last attempt, and the horizon of about three days.
import { expect } from 'chai';
import { MAX_ATTEMPTS, nextWaitMs, RETRY_WAITS_SECONDS } from '../../src/webhooks/retry-schedule.js';

describe('webhook retry schedule', () => {
  it('waits 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 12 h five times, each ±20%', () => {
    expect(RETRY_WAITS_SECONDS).to.deep.equal([5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200]);
    RETRY_WAITS_SECONDS.forEach((seconds, i) => {
      expect(nextWaitMs(i + 1, 1000, () => 0)).to.equal(Math.round(seconds * 800));
      expect(nextWaitMs(i + 1, 1000, () => 0.5)).to.equal(seconds * 1000);
      expect(nextWaitMs(i + 1, 1000, () => 1)).to.equal(Math.round(seconds * 1200));
    });
  });

  it('gives up after the 15th attempt, about three days after the first', () => {
    expect(MAX_ATTEMPTS).to.equal(15);
    expect(nextWaitMs(MAX_ATTEMPTS, 1000)).to.equal(undefined);
    const hours = RETRY_WAITS_SECONDS.reduce((a, b) => a + b, 0) / 3600;
    expect(hours).to.be.within(72, 80);
  });

  it('scales with the unit (tests shrink a second to milliseconds)', () => {
    expect(nextWaitMs(1, 10, () => 0.5)).to.equal(50);
  });
});
