// Load for fault tests: requests offered at a fixed rate for a fixed time, spread over several
// instances, whatever the answers; every request and its outcome is kept for the assertions.
// At most `maxInFlight` wait at once: on a machine too busy for the rate, sending slows down
// instead of queueing without bound (the achieved rate is returned). Loopback only; bounded.
import { call, type ApiResponse } from './api-client.js';

export interface Sent {
  base: string;
  key: string;
  body: object;
  res: ApiResponse;
  endedAt: number;
}

export async function openLoop(options: {
  bases: string[];
  apiKey: string;
  rate: number;
  seconds: number;
  body: (i: number) => object;
  during?: () => Promise<void>;
  maxInFlight?: number;
}): Promise<{ sent: Sent[]; achievedRate: number }> {
  const maxInFlight = options.maxInFlight ?? 24;
  let inFlight = 0;
  let freed: (() => void) | undefined;
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const started = performance.now();
  const pending: Promise<Sent>[] = [];
  const sideline = options.during?.();
  for (let i = 0; i < total; i++) {
    const wait = started + i * interval - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight >= maxInFlight)
      await new Promise<void>((resolve) => {
        freed = resolve;
      });
    inFlight += 1;
    const base = options.bases[i % options.bases.length]!;
    const key = `load-${i}-${Date.now()}`;
    const body = options.body(i);
    pending.push(
      call(base, 'POST', '/v1/verdict', { key: options.apiKey, body, headers: { 'idempotency-key': key }, timeoutMs: 20_000 }).then(
        (res) => {
          inFlight -= 1;
          freed?.();
          return { base, key, body, res, endedAt: Date.now() };
        },
      ),
    );
  }
  const sent = await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  await sideline;
  return { sent, achievedRate: Math.round(total / seconds) };
}
