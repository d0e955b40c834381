// Realistic verdict traffic: a seeded mix of event types over a population of generated
// identities that overlap the way real traffic does (repeat users, shared devices and cards,
// households sharing a phone, a few hubs such as a placeholder phone).
const MIX: [string, number][] = [
  ['signup', 0.4],
  ['login', 0.25],
  ['checkout_attempt', 0.2],
  ['trial_start', 0.1],
  ['trial_convert', 0.05],
];

// mulberry32: a tiny deterministic PRNG, so every run replays the same traffic.
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The seeded draws both traffics make: a number, a pick from a list, an event type by the mix.
function draws(seed: number) {
  const random = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const type = () => {
    let r = random();
    for (const [t, p] of MIX) if ((r -= p) < 0) return t;
    return 'signup';
  };
  return { random, pick, type };
}

export const BENCH_DOMAINS = Array.from({ length: 40 }, (_, i) => `bench-corp-${i}.com`).concat(['gmail.com', 'outlook.com']);

// deviceTokens: tokens minted from POST /v1/device before the run; about half the events carry
// one, and neighbouring users share devices.
export function createTraffic(seed: number, deviceTokens: string[], users = 20_000, runId = Date.now().toString(36)) {
  const { random, pick, type } = draws(seed);
  let counter = 0;
  return (): Record<string, unknown> => {
    counter += 1;
    const u = Math.floor(random() ** 2 * users); // skewed: some users come back often
    const eventType = type();
    const body: Record<string, unknown> = {
      event_type: eventType,
      external_user_id: `u${runId}_${u}`,
      email: `user${u}@${BENCH_DOMAINS[u % BENCH_DOMAINS.length]}`,
      ip: `100.${64 + (u % 32)}.${(u >> 5) % 256}.${1 + (counter % 250)}`,
      user_agent: 'Mozilla/5.0 (bench)',
      identity: { phone: random() < 0.01 ? '0000000000' : `+1555${String(Math.floor(u / 3)).padStart(7, '0')}` },
    };
    // Users 2k and 2k+1 share a device (a couple, a family laptop); the rest bring their own
    // tokens only while there are tokens left, so no device links dozens of users.
    const device = deviceTokens[Math.floor(u / 2)];
    if (device && random() < 0.8) body.device_token = device;
    if (eventType === 'checkout_attempt') {
      body.payment = {
        card_fingerprint: `card_${random() < 0.05 ? pick(['shared_a', 'shared_b', 'test_card']) : Math.floor(u / 2)}`,
        card_funding: pick(['credit', 'debit', 'debit', 'prepaid', 'unknown']),
        card_country: pick(['us', 'us', 'gb', 'fr', 'de']),
        amount: random() < 0.05 ? 50 : 1000 + Math.floor(random() * 20_000),
        currency: 'usd',
      };
    }
    return body;
  };
}

// Contended traffic, the shape that made the graph drop out under the old inline write: a small
// population where a few accounts return constantly, households of four sharing a phone, every
// card shared by two accounts, and devices shared by pairs. Every event of a hot account and
// every event carrying a shared identifier touches the same graph nodes.
export function createContendedTraffic(seed: number, deviceTokens: string[], users = 1_000, runId = Date.now().toString(36)) {
  const { random, pick, type } = draws(seed);
  let counter = 0;
  return (): Record<string, unknown> => {
    counter += 1;
    const u = Math.floor(random() ** 4 * users);
    const eventType = type();
    const body: Record<string, unknown> = {
      event_type: eventType,
      external_user_id: `c${runId}_${u}`,
      email: `member${u}@${BENCH_DOMAINS[u % BENCH_DOMAINS.length]}`,
      ip: `100.${96 + (u % 16)}.${(u >> 4) % 256}.${1 + (counter % 250)}`,
      identity: { phone: `+1666${String(Math.floor(u / 4)).padStart(7, '0')}` },
    };
    const device = deviceTokens[Math.floor(u / 2) % deviceTokens.length];
    if (device) body.device_token = device;
    if (eventType === 'checkout_attempt') {
      body.payment = {
        card_fingerprint: `ccard_${runId}_${Math.floor(u / 2)}`,
        card_funding: pick(['credit', 'debit']),
        card_country: pick(['us', 'gb']),
        amount: 1000 + Math.floor(random() * 20_000),
        currency: 'usd',
      };
    }
    return body;
  };
}
