// The verdict's deadlines bound the stores, not this process's own stalls (src/deadline.ts): an
// answer that arrived while the loop was busy counts, even when the deadline's timer is due by then.
import fs from 'node:fs';
import { expect } from 'chai';
import { clearableDeadline } from '../../src/deadline.js';
import { gather } from '../../src/verdicts/with-deadline.js';

const busyFor = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // A stalled loop, on purpose.
  }
};

describe('the verdict deadline', () => {
  it('counts an answer that arrived while the process was stalled past the deadline', async () => {
    const { signal, clear } = clearableDeadline(20);
    // Done by libuv's threads while this thread is busy (one step); its callback waits for the loop.
    const stat = new Promise<fs.Stats>((resolve, reject) =>
      fs.stat(new URL(import.meta.url), (err, s) => (err ? reject(err) : resolve(s))),
    );
    const read = gather(stat, signal);
    busyFor(100);
    const result = await read;
    clear();
    expect(result.ok).to.equal(true);
  });

  it('still passes for work that has not answered', async () => {
    const { signal, clear } = clearableDeadline(20);
    const result = await gather(new Promise(() => undefined), signal);
    clear();
    expect(result).to.deep.equal({ ok: false, missing: 'timeout' });
  });

  it('never fires once cleared', async () => {
    const { signal, clear } = clearableDeadline(5);
    clear();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(signal.aborted).to.equal(false);
  });
});
