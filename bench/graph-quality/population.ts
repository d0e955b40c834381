// The graph-quality bench's synthetic population (docs/graph-quality.md): honest people in
// households, offices, at kiosks and hotspots or alone, with the identifiers real people share
// (home wifi, a family phone or tablet, an office network, recycled numbers, placeholders, the
// tenant's own test card), and fraud rings sharing devices, cards and phones, signing up in
// bursts or patiently, plus account takeovers. Feedback arrives late, on a fraction of the ring
// members, with some mistaken marks on honest people. Honest groups that sign up together (a
// team onboarding in an afternoon, a family plan in an evening on one tablet) and device farms
// larger than every hub threshold come from a second generator seeded alongside, so the people
// above them are the same with or without them. Pure and seeded: the same parameters give the
// same population, and every person carries the truth the scorer compares decisions with.

export interface PopulationParams {
  seed: number;
  weeks: number;
  households: number;
  householdSize: [number, number];
  // Share of households that also share a phone, and a family tablet.
  householdPhone: number;
  householdTablet: number;
  offices: number;
  officeSize: [number, number];
  kiosks: number;
  kioskUsers: number;
  hotspots: number;
  hotspotUsers: number;
  loners: number;
  // Pairs of unrelated loners: one phone number used by both, weeks apart; emails one typo apart.
  recycledPhones: number;
  typoPairs: number;
  // Honest people who send a placeholder phone, a placeholder email, or pay with the tenant's test card.
  placeholderPhones: number;
  placeholderEmails: number;
  testCardUsers: number;
  rings: number;
  ringSize: [number, number];
  // Share of rings that sign up in a burst (seconds apart); the others days apart.
  burstRings: number;
  takeovers: number;
  // Team onboardings: colleagues invited in one afternoon, on the office network and address and
  // the company's own email domain; each alone in truth.
  teams: number;
  teamSize: [number, number];
  // Family plans: a family signing up in one evening on one tablet at home; one group in truth.
  families: number;
  familySize: [number, number];
  // Share of families whose members pay with the family's card.
  familyCard: number;
  // Device farms: rings larger than every hub threshold, sharing a device token, an identity
  // value and a pool of cards, signing up within an hour or two; some on free-mail addresses.
  farms: number;
  farmSize: [number, number];
  farmFreeMail: number;
  // Share of ring members reported confirmed_abuse, 1 to `feedbackDelayDays` days after their signup.
  ringFeedback: number;
  feedbackDelayDays: number;
  // Share of honest people wrongly reported confirmed_abuse.
  mistakenMarks: number;
  // Share of ring checkouts that come back as a chargeback.
  ringChargebacks: number;
}

export const DEFAULT_PARAMS: PopulationParams = {
  seed: 1,
  weeks: 6,
  households: 300,
  householdSize: [2, 4],
  householdPhone: 0.3,
  householdTablet: 0.3,
  offices: 12,
  officeSize: [6, 40],
  kiosks: 3,
  kioskUsers: 30,
  hotspots: 2,
  hotspotUsers: 60,
  loners: 700,
  recycledPhones: 20,
  typoPairs: 20,
  placeholderPhones: 40,
  placeholderEmails: 30,
  testCardUsers: 30,
  rings: 30,
  ringSize: [4, 15],
  burstRings: 0.5,
  takeovers: 20,
  teams: 6,
  teamSize: [15, 40],
  families: 40,
  familySize: [3, 5],
  familyCard: 0.5,
  farms: 6,
  farmSize: [12, 40],
  farmFreeMail: 0.5,
  ringFeedback: 0.4,
  feedbackDelayDays: 10,
  mistakenMarks: 0.01,
  ringChargebacks: 0.3,
};

export type Setting = 'household' | 'office' | 'team' | 'family' | 'kiosk' | 'hotspot' | 'loner' | 'ring';

export interface Person {
  id: number;
  account: string;
  email: string;
  ip: string;
  honest: boolean;
  setting: Setting;
  // The truth: people of one household or one ring belong together; everyone else is alone.
  group: string;
  identity: Record<string, string>;
  // A device key (components of a device token); shared by a household tablet, a kiosk, a ring.
  device?: string;
  card: string;
  cardFunding: 'credit' | 'debit' | 'prepaid';
}

export interface SimEvent {
  at: number;
  person: number;
  // The verdict request without its device token (minted at send time from `device`).
  body: Record<string, unknown>;
  device?: string;
  // An attacker's login on an honest account (account takeover).
  attack?: boolean;
  // Feedback about a checkout points at it by its index in the events (its id is known once sent).
  tag?: string;
}

export interface SimFeedback {
  at: number;
  subject: { kind: 'external_user_id' | 'event_id'; value: string };
  outcome: 'confirmed_abuse' | 'chargeback';
  mistaken: boolean;
  // For a chargeback: the tag of the checkout event it is about.
  eventTag?: string;
}

export interface Population {
  params: PopulationParams;
  people: Person[];
  events: SimEvent[];
  feedback: SimFeedback[];
  // What each group shares, by kind: the truth behind the links.
  shared: Record<string, Record<string, string>>;
}

const DAY = 86_400_000;
const MIN = 60_000;

// mulberry32: a small, well-known 32-bit generator; enough for a reproducible population.
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

const PROVIDERS = ['gmail.com', 'shop-mail.com', 'acme-corp.com', 'post-box.net'];
const DISPOSABLE = ['mailinator.com', 'guerrillamail.com'];
const NAMES = ['ada', 'ben', 'cleo', 'dev', 'eli', 'fay', 'gus', 'hana', 'ivo', 'jun', 'kai', 'lea', 'max', 'noa', 'oli', 'pia'];

export function generatePopulation(overrides: Partial<PopulationParams> = {}): Population {
  const params = { ...DEFAULT_PARAMS, ...overrides };
  // The first generator draws everyone but the groups that sign up together and the farms, which
  // draw from the second: adding them moved none of the people before them.
  const first = rng(params.seed);
  const second = rng(params.seed ^ 0x5eed);
  let r = first;
  const span = params.weeks * 7 * DAY;
  const people: Person[] = [];
  const events: SimEvent[] = [];
  const feedback: SimFeedback[] = [];
  const shared: Population['shared'] = {};
  let tags = 0;

  const newPerson = (setting: Setting, group: string, honest: boolean, extra: Partial<Person> = {}): Person => {
    const id = people.length;
    const name = `${r.pick(NAMES)}${id}`;
    const provider = honest ? r.pick(PROVIDERS) : r.pick(DISPOSABLE);
    // Gmail addresses come with dots and plus tags as people type them.
    const local = provider === 'gmail.com' && r.chance(0.3) ? `${name.slice(0, 2)}.${name.slice(2)}+${r.int(1, 9)}` : name;
    const p: Person = {
      id,
      account: `u${params.seed}_${id}`,
      email: `${local}@${provider}`,
      ip: `100.${64 + (id >> 16)}.${(id >> 8) & 255}.${id & 255}`,
      honest,
      setting,
      group,
      identity: {},
      card: `card_${params.seed}_${id}`,
      cardFunding: r.chance(0.5) ? 'credit' : 'debit',
      ...extra,
    };
    people.push(p);
    return p;
  };

  // An honest life: a signup, logins over the weeks, some trials (some converted), some checkouts.
  const honestLife = (p: Person, start: number, context: Record<string, string>, device?: string) => {
    const identity = { ...p.identity, ...context };
    const base = { external_user_id: p.account, email: p.email, ip: p.ip, ...(Object.keys(identity).length > 0 && { identity }) };
    events.push({ at: start, person: p.id, body: { event_type: 'signup', ...base }, device });
    let t = start;
    if (r.chance(0.4)) {
      t += r.int(1, 48) * 3_600_000;
      events.push({ at: t, person: p.id, body: { event_type: 'trial_start', ...base }, device });
      if (r.chance(0.5))
        events.push({
          at: t + 14 * DAY,
          person: p.id,
          body: {
            event_type: 'trial_convert',
            external_user_id: p.account,
            email: p.email,
            ...(Object.keys(identity).length > 0 && { identity }),
          },
        });
    }
    if (r.chance(0.5)) {
      events.push({
        at: start + r.int(1, 20) * DAY,
        person: p.id,
        device,
        body: {
          event_type: 'checkout_attempt',
          ...base,
          payment: { card_fingerprint: p.card, card_country: 'us', card_funding: p.cardFunding, amount: r.int(500, 9000), currency: 'usd' },
        },
      });
    }
    for (let i = r.int(2, 6); i > 0; i--) {
      const at = start + r.int(1, Math.max(1, Math.floor((span - start) / DAY))) * DAY + r.int(0, 600) * MIN;
      if (at < span)
        events.push({
          at,
          person: p.id,
          body: { event_type: 'login', external_user_id: p.account, ip: p.ip, ...(Object.keys(identity).length > 0 && { identity }) },
          device,
        });
    }
  };
  const someStart = () => r.int(0, Math.floor((span * 0.8) / MIN)) * MIN;

  // A ring member's life: a signup, a trial minutes later, a checkout within two hours (a
  // chargeback on some), logins over the next weeks; confirmed_abuse reported on some, late.
  const ringLife = (p: Person, t: number, device?: string) => {
    const identity = Object.keys(p.identity).length > 0 ? { identity: p.identity } : {};
    const base = { external_user_id: p.account, email: p.email, ip: p.ip, ...identity };
    events.push({ at: t, person: p.id, body: { event_type: 'signup', ...base }, device });
    events.push({ at: t + r.int(1, 30) * MIN, person: p.id, body: { event_type: 'trial_start', ...base }, device });
    const tag = `checkout-${tags++}`;
    events.push({
      at: t + r.int(31, 120) * MIN,
      person: p.id,
      device,
      tag,
      body: {
        event_type: 'checkout_attempt',
        ...base,
        payment: {
          card_fingerprint: p.card,
          card_country: r.pick(['us', 'gb', 'br']),
          card_funding: p.cardFunding,
          amount: r.int(500, 9000),
          currency: 'usd',
        },
      },
    });
    if (r.chance(params.ringChargebacks))
      feedback.push({
        at: t + r.int(5, 15) * DAY,
        subject: { kind: 'event_id', value: '' },
        outcome: 'chargeback',
        mistaken: false,
        eventTag: tag,
      });
    for (let j = r.int(1, 4); j > 0; j--)
      events.push({
        at: t + r.int(1, 20) * DAY,
        person: p.id,
        body: { event_type: 'login', external_user_id: p.account, ip: p.ip, ...identity },
        device,
      });
    if (r.chance(params.ringFeedback))
      feedback.push({
        at: t + r.int(1, params.feedbackDelayDays) * DAY,
        subject: { kind: 'external_user_id', value: p.account },
        outcome: 'confirmed_abuse',
        mistaken: false,
      });
  };

  // Households: home wifi and an IP-like home value; some a family phone, some a family tablet.
  for (let h = 0; h < params.households; h++) {
    const group = `household-${h}`;
    const home = { wifi: `home-${params.seed}-${h}`, home_ip: `home-ip-${params.seed}-${h}` };
    const phone = r.chance(params.householdPhone) ? `+1555${params.seed}${String(h).padStart(5, '0')}` : undefined;
    const tablet = r.chance(params.householdTablet) ? `tablet-${params.seed}-${h}` : undefined;
    shared[group] = { ...home, ...(phone && { phone }), ...(tablet && { device: tablet }) };
    const first = someStart();
    for (let i = r.int(...params.householdSize); i > 0; i--) {
      const p = newPerson('household', group, true, { identity: phone ? { phone } : {} });
      // Members join over weeks (a partner, a teenager), rarely the same day.
      honestLife(
        p,
        Math.min(span - DAY, first + r.int(0, 21) * DAY + r.int(0, 600) * MIN),
        home,
        tablet && r.chance(0.7) ? tablet : undefined,
      );
    }
  }
  // Offices: an office network, people signing up from work over the weeks; each alone in truth.
  for (let o = 0; o < params.offices; o++) {
    const wifi = `office-${params.seed}-${o}`;
    for (let i = r.int(...params.officeSize); i > 0; i--) {
      const p = newPerson('office', `office-${o}-person-${people.length}`, true);
      honestLife(p, someStart(), { wifi });
    }
  }
  // Kiosks (one device many use) and public hotspots (one network many use).
  for (let k = 0; k < params.kiosks; k++) {
    const device = `kiosk-${params.seed}-${k}`;
    for (let i = 0; i < params.kioskUsers; i++)
      honestLife(newPerson('kiosk', `kiosk-person-${people.length}`, true), someStart(), {}, device);
  }
  for (let k = 0; k < params.hotspots; k++) {
    const wifi = `hotspot-${params.seed}-${k}`;
    for (let i = 0; i < params.hotspotUsers; i++)
      honestLife(newPerson('hotspot', `hotspot-person-${people.length}`, true), someStart(), { wifi });
  }
  // Loners, some with their own phone; recycled numbers, typos, placeholders and the test card.
  const loners: Person[] = [];
  for (let i = 0; i < params.loners; i++) {
    const p = newPerson('loner', `loner-${people.length}`, true);
    if (r.chance(0.5)) p.identity = { phone: `+1666${params.seed}${String(p.id).padStart(6, '0')}` };
    loners.push(p);
  }
  for (let i = 0; i < params.recycledPhones; i++) {
    const [a, b] = [loners[2 * i]!, loners[2 * i + 1]!];
    const phone = `+1777${params.seed}${String(i).padStart(5, '0')}`;
    a.identity = { phone };
    b.identity = { phone };
    shared[`recycled-${i}`] = { phone };
  }
  for (let i = 0; i < params.typoPairs; i++) {
    const [a, b] = [loners[100 + 2 * i]!, loners[100 + 2 * i + 1]!];
    b.email = a.email.replace(/^(.)/, (c) => (c === 'x' ? 'y' : 'x'));
  }
  for (let i = 0; i < params.placeholderPhones; i++) loners[200 + i]!.identity = { phone: '0000000000' };
  for (let i = 0; i < params.placeholderEmails; i++)
    loners[250 + i]!.identity = { ...loners[250 + i]!.identity, backup_email: 'test@example.com' };
  for (let i = 0; i < params.testCardUsers; i++) loners[300 + i]!.card = 'card_tenant_test';
  loners.forEach((p, i) => {
    // The second holder of a recycled number gets it weeks after the first.
    const start = i < 2 * params.recycledPhones ? (i % 2 === 0 ? r.int(0, 7) * DAY : r.int(28, 35) * DAY) : someStart();
    honestLife(p, start, {});
  });

  // Fraud rings.
  for (let g = 0; g < params.rings; g++) {
    const group = `ring-${g}`;
    const size = r.int(...params.ringSize);
    const device = r.chance(0.6) ? `ring-device-${params.seed}-${g}` : undefined;
    const phone = r.chance(0.5) ? `+1888${params.seed}${String(g).padStart(4, '0')}` : undefined;
    const cards =
      r.chance(0.7) || (!device && !phone) ? Array.from({ length: r.int(1, 3) }, (_, i) => `ring-card-${params.seed}-${g}-${i}`) : [];
    shared[group] = { ...(device && { device }), ...(phone && { phone }), ...(cards.length > 0 && { card: cards.join(',') }) };
    const burst = r.chance(params.burstRings);
    // Every member signs up (and does most of what it does) within the span: a patient ring
    // starts early enough for its last member, days apart, to follow.
    const spacingDays = Math.max(1, Math.min(4, Math.floor((0.85 * span) / DAY / size)));
    let t = burst ? someStart() : r.int(0, Math.max(0, Math.floor((span - size * spacingDays * DAY - 2 * DAY) / MIN))) * MIN;
    for (let i = 0; i < size; i++) {
      const p = newPerson('ring', group, false, { identity: phone ? { phone } : {}, cardFunding: r.chance(0.4) ? 'prepaid' : 'credit' });
      if (cards.length > 0) p.card = cards[i % cards.length]!;
      p.ip = `100.96.${g}.${i + 1}`;
      t += burst ? r.int(5, 30) * 1000 : r.int(1, spacingDays) * DAY - r.int(0, 600) * MIN;
      ringLife(p, t, device);
    }
  }

  r = second;
  // Team onboardings: an afternoon's invitations, from the office network and its one public
  // address, on the company's domain (it has MX). Colleagues are distinct people.
  for (let k = 0; k < params.teams; k++) {
    const domain = `team${k}-corp${params.seed}.com`;
    const wifi = `team-office-${params.seed}-${k}`;
    const ip = `100.98.${params.seed & 255}.${k + 1}`;
    let t = someStart();
    for (let i = r.int(...params.teamSize); i > 0; i--) {
      const p = newPerson('team', `team-${k}-person-${people.length}`, true, { ip });
      p.email = `${p.email.split('@')[0]}@${domain}`;
      t += r.int(1, 12) * MIN;
      honestLife(p, t, { wifi });
    }
  }
  // Family plans: one evening, minutes apart, on the family tablet at home; some pay with the
  // family's card.
  for (let k = 0; k < params.families; k++) {
    const group = `family-${k}`;
    const home = { wifi: `family-home-${params.seed}-${k}`, home_ip: `family-ip-${params.seed}-${k}` };
    const tablet = `family-tablet-${params.seed}-${k}`;
    const ip = `100.99.${params.seed & 255}.${k + 1}`;
    const card = r.chance(params.familyCard) ? `family-card-${params.seed}-${k}` : undefined;
    shared[group] = { ...home, device: tablet, ...(card && { card }) };
    let t = someStart();
    for (let i = r.int(...params.familySize); i > 0; i--) {
      const p = newPerson('family', group, true, { ip, ...(card && { card }) });
      t += r.int(2, 25) * MIN;
      honestLife(p, t, home, tablet);
    }
  }
  // Device farms: one device token, one identity value the farm's software sends, a pool of
  // cards; every account within an hour or two; half on free-mail addresses.
  for (let g = 0; g < params.farms; g++) {
    const group = `farm-${g}`;
    const device = `farm-device-${params.seed}-${g}`;
    const deviceId = `farm-device-id-${params.seed}-${g}`;
    const cards = Array.from({ length: r.int(2, 4) }, (_, i) => `farm-card-${params.seed}-${g}-${i}`);
    shared[group] = { device, device_id: deviceId, card: cards.join(',') };
    const freeMail = r.chance(params.farmFreeMail);
    let t = someStart();
    for (let i = r.int(...params.farmSize); i > 0; i--) {
      const p = newPerson('ring', group, false, { identity: { device_id: deviceId }, cardFunding: r.chance(0.4) ? 'prepaid' : 'credit' });
      if (freeMail) p.email = `${p.email.split('@')[0]}@gmail.com`;
      p.card = cards[i % cards.length]!;
      p.ip = `100.95.${g}.${i}`;
      t += r.int(5, 240) * 1000;
      ringLife(p, t, device);
    }
  }

  r = first;
  // Account takeovers: an attacker logs into an honest account from a new device and address.
  const honest = people.filter((p) => p.honest && (p.setting === 'loner' || p.setting === 'household'));
  for (let i = 0; i < params.takeovers; i++) {
    const victim = honest[Math.floor(((i + 0.5) * honest.length) / params.takeovers)]!;
    events.push({
      at: span - r.int(1, 7) * DAY,
      person: victim.id,
      attack: true,
      device: `attacker-${params.seed}-${i}`,
      body: { event_type: 'login', external_user_id: victim.account, ip: `100.97.0.${i + 1}` },
    });
  }
  // Mistaken marks: honest people reported as abusive, late.
  for (const p of people) {
    if (!p.honest || !r.chance(params.mistakenMarks)) continue;
    const first = Math.min(...events.filter((e) => e.person === p.id).map((e) => e.at));
    feedback.push({
      at: first + r.int(1, params.feedbackDelayDays) * DAY,
      subject: { kind: 'external_user_id', value: p.account },
      outcome: 'confirmed_abuse',
      mistaken: true,
    });
  }

  const inSpan = events.filter((e) => e.at < span).sort((a, b) => a.at - b.at || a.person - b.person);
  return { params, people, events: inSpan, feedback: feedback.filter((f) => f.at < span).sort((a, b) => a.at - b.at), shared };
}
