// The graph-quality bench's generator (bench/graph-quality/population.ts): its truth is what it
// claims, since every score the bench publishes is measured against it. Pure: no stores.
import { expect } from 'chai';
import { DEFAULT_PARAMS, generatePopulation, type Population } from '../../bench/graph-quality/population.js';
import { score, type Decision } from '../../bench/graph-quality/score.js';

const idsOf = (pop: Population, person: number) => {
  const out = new Set<string>();
  for (const e of pop.events.filter((x) => x.person === person && !x.attack)) {
    for (const [k, v] of Object.entries((e.body.identity ?? {}) as Record<string, string>)) out.add(`${k}:${v}`);
    if (e.device) out.add(`device:${e.device}`);
    const card = (e.body.payment as { card_fingerprint?: string } | undefined)?.card_fingerprint;
    if (card) out.add(`card:${card}`);
  }
  return out;
};

describe('graph-quality population', () => {
  const pop = generatePopulation();

  it('is the same for the same seed and another for another seed', () => {
    expect(JSON.stringify(generatePopulation())).to.equal(JSON.stringify(pop));
    expect(JSON.stringify(generatePopulation({ seed: 2 }).events.slice(0, 50))).to.not.equal(JSON.stringify(pop.events.slice(0, 50)));
  });

  it('has the groups its parameters ask for, rings within their sizes', () => {
    const groups = new Map<string, number[]>();
    for (const p of pop.people) groups.set(p.group, [...(groups.get(p.group) ?? []), p.id]);
    const rings = [...groups].filter(([g]) => g.startsWith('ring-'));
    const households = [...groups].filter(([g]) => g.startsWith('household-'));
    expect(rings).to.have.length(DEFAULT_PARAMS.rings);
    for (const [, members] of rings) expect(members.length).to.be.within(...DEFAULT_PARAMS.ringSize);
    expect(households).to.have.length(DEFAULT_PARAMS.households);
    for (const [, members] of households) expect(members.length).to.be.within(...DEFAULT_PARAMS.householdSize);
    expect(pop.people.filter((p) => !p.honest).every((p) => p.setting === 'ring')).to.equal(true);
    const farms = [...groups].filter(([g]) => g.startsWith('farm-'));
    expect(farms).to.have.length(DEFAULT_PARAMS.farms);
    for (const [, members] of farms) expect(members.length).to.be.within(...DEFAULT_PARAMS.farmSize);
    const families = [...groups].filter(([g]) => g.startsWith('family-'));
    expect(families).to.have.length(DEFAULT_PARAMS.families);
    for (const [, members] of families) expect(members.length).to.be.within(...DEFAULT_PARAMS.familySize);
    expect(new Set(pop.people.filter((p) => p.setting === 'team').map((p) => p.email.split('@')[1]))).to.have.property(
      'size',
      DEFAULT_PARAMS.teams,
    );
    expect(pop.people.length).to.be.within(2600, 3300);
  });

  it('gives ring members the identifiers the truth says they share, and households their home values', () => {
    for (const [group, sharedIds] of Object.entries(pop.shared)) {
      const members = pop.people.filter((p) => p.group === group);
      if (group.startsWith('recycled-')) continue;
      expect(members.length, group).to.be.greaterThan(1);
      const expected = Object.entries(sharedIds).flatMap(([k, v]) => (k === 'card' ? v.split(',').map((c) => `card:${c}`) : [`${k}:${v}`]));
      if (group.startsWith('ring-') || group.startsWith('farm-')) {
        expect(expected.length, `${group} shares something`).to.be.greaterThan(0);
        for (const m of members) {
          const has = idsOf(pop, m.id);
          // Every member carries the ring's device and phone; its card is one of the ring's cards.
          for (const id of expected.filter((x) => !x.startsWith('card:')))
            expect(has.has(id), `${group} member ${m.id} ${id}`).to.equal(true);
          const cards = expected.filter((x) => x.startsWith('card:'));
          if (cards.length > 0)
            expect(
              cards.some((c) => has.has(c)),
              `${group} member ${m.id} card`,
            ).to.equal(true);
        }
      } else {
        for (const m of members) {
          const has = idsOf(pop, m.id);
          expect(has.has(`wifi:${sharedIds.wifi}`) && has.has(`home_ip:${sharedIds.home_ip}`), `${group} member ${m.id}`).to.equal(true);
        }
      }
    }
  });

  it('lets honest groups arrive together: a team in an afternoon on one network, address and company domain, a family in an evening on one tablet', () => {
    const signups = (ids: number[]) => pop.events.filter((e) => ids.includes(e.person) && e.body.event_type === 'signup');
    const span = (ids: number[]) => {
      const at = signups(ids).map((e) => e.at);
      return Math.max(...at) - Math.min(...at);
    };
    for (let k = 0; k < DEFAULT_PARAMS.teams; k++) {
      const team = pop.people.filter((p) => p.group.startsWith(`team-${k}-`));
      expect(team.length, `team ${k}`).to.be.within(...DEFAULT_PARAMS.teamSize);
      // Colleagues are distinct people: each alone in the truth.
      expect(new Set(team.map((p) => p.group)).size).to.equal(team.length);
      expect(team.every((p) => p.honest && p.setting === 'team')).to.equal(true);
      expect(new Set(team.map((p) => p.email.split('@')[1])).size, `team ${k} domain`).to.equal(1);
      expect(new Set(signups(team.map((p) => p.id)).map((e) => `${e.body.ip} ${JSON.stringify(e.body.identity)}`)).size).to.equal(1);
      expect(span(team.map((p) => p.id))).to.be.at.most(team.length * 12 * 60_000);
    }
    for (const [group, sharedIds] of Object.entries(pop.shared).filter(([g]) => g.startsWith('family-'))) {
      const family = pop.people.filter((p) => p.group === group);
      expect(family.every((p) => p.honest && p.setting === 'family')).to.equal(true);
      // Every signup on the family tablet, within an evening.
      const ids = family.map((p) => p.id);
      expect(signups(ids).every((e) => e.device === sharedIds.device)).to.equal(true);
      expect(span(ids)).to.be.at.most(5 * 25 * 60_000);
      for (const m of family) expect(idsOf(pop, m.id).has(`wifi:${sharedIds.wifi}`)).to.equal(true);
      if (sharedIds.card) for (const m of family) expect(m.card).to.equal(sharedIds.card);
    }
  });

  it('makes every farm larger than the identity hub threshold, sharing one device token, one identity value and a card pool, within hours', () => {
    for (const [group, sharedIds] of Object.entries(pop.shared).filter(([g]) => g.startsWith('farm-'))) {
      const farm = pop.people.filter((p) => p.group === group);
      expect(farm.length).to.be.greaterThan(10);
      expect(farm.every((p) => !p.honest && p.setting === 'ring')).to.equal(true);
      const cards = sharedIds.card!.split(',');
      for (const m of farm) {
        const has = idsOf(pop, m.id);
        expect(has.has(`device:${sharedIds.device}`) && has.has(`device_id:${sharedIds.device_id}`), `${group} ${m.id}`).to.equal(true);
        expect(cards).to.include(m.card);
      }
      const at = pop.events.filter((e) => farm.some((p) => p.id === e.person) && e.body.event_type === 'signup').map((e) => e.at);
      expect(Math.max(...at) - Math.min(...at)).to.be.at.most(farm.length * 240_000);
    }
    // Farms larger than the device and card hub thresholds (25) are there too.
    expect(Object.keys(pop.shared).filter((g) => g.startsWith('farm-') && pop.people.filter((p) => p.group === g).length > 25)).to.not.be
      .empty;
  });

  it('puts placeholders, the test card, kiosks and hotspots across unrelated people, and recycles phones weeks apart', () => {
    const usersOf = (id: string) => new Set(pop.people.filter((p) => idsOf(pop, p.id).has(id)).map((p) => p.group));
    expect(usersOf('phone:0000000000').size).to.equal(DEFAULT_PARAMS.placeholderPhones);
    expect(usersOf('backup_email:test@example.com').size).to.equal(DEFAULT_PARAMS.placeholderEmails);
    expect(usersOf('card:card_tenant_test').size).to.be.within(1, DEFAULT_PARAMS.testCardUsers);
    expect(usersOf('device:kiosk-1-0').size).to.be.greaterThan(20);
    expect(usersOf('wifi:hotspot-1-0').size).to.equal(DEFAULT_PARAMS.hotspotUsers);
    const recycled = Object.entries(pop.shared).filter(([g]) => g.startsWith('recycled-'));
    expect(recycled).to.have.length(DEFAULT_PARAMS.recycledPhones);
    for (const [, { phone }] of recycled) {
      const holders = pop.people.filter((p) => p.identity.phone === phone);
      expect(holders).to.have.length(2);
      expect(holders[0]!.group).to.not.equal(holders[1]!.group);
      const firstSeen = holders.map((h) => Math.min(...pop.events.filter((e) => e.person === h.id).map((e) => e.at)));
      expect(Math.abs(firstSeen[1]! - firstSeen[0]!)).to.be.greaterThan(14 * 86_400_000);
    }
  });

  it('orders events in time, sends feedback after what it is about, and marks about 1% of honest people by mistake', () => {
    for (let i = 1; i < pop.events.length; i++) expect(pop.events[i]!.at).to.be.at.least(pop.events[i - 1]!.at);
    const firstOf = new Map<string, number>();
    for (const e of pop.events) if (!firstOf.has(String(e.body.external_user_id))) firstOf.set(String(e.body.external_user_id), e.at);
    const marks = pop.feedback.filter((f) => f.outcome === 'confirmed_abuse');
    for (const f of marks) expect(f.at).to.be.greaterThan(firstOf.get(f.subject.value)!);
    const honest = pop.people.filter((p) => p.honest).length;
    const mistaken = marks.filter((f) => f.mistaken).length;
    expect(mistaken / honest).to.be.within(0.003, 0.02);
    const ringMarks = marks.filter((f) => !f.mistaken).length;
    expect(ringMarks / pop.people.filter((p) => !p.honest).length).to.be.within(0.2, 0.6);
    expect(pop.events.filter((e) => e.attack)).to.have.length(DEFAULT_PARAMS.takeovers);
  });

  it('scores against that truth: precision and recall of clusters, and who a cluster reason convicted', () => {
    const small = generatePopulation({
      households: 2,
      offices: 0,
      kiosks: 0,
      hotspots: 0,
      loners: 400,
      rings: 1,
      takeovers: 0,
      teams: 0,
      families: 0,
      farms: 0,
      mistakenMarks: 0,
    });
    const ring = small.people.filter((p) => !p.honest);
    const household = small.people.filter((p) => p.group === 'household-0');
    // Perfect clusters: each household and the ring together, everyone else alone.
    const perfect = new Map([...ring, ...household].map((p) => [p.account, p.group]));
    for (const p of small.people.filter((x) => x.group === 'household-1')) perfect.set(p.account, p.group);
    const none: Decision[] = [];
    const s = score(small, none, perfect, []);
    expect(s).to.deep.include({ pairwise_precision: 1, pairwise_recall: 1, innocent_blocked: 0 });
    // Fusing a loner into the ring costs precision; a block of that loner is an innocent convicted.
    const loner = small.people.find((p) => p.setting === 'loner')!;
    const fused = new Map(perfect).set(loner.account, 'ring-0');
    const blocked: Decision[] = [
      { person: loner.id, at: 1, eventType: 'login', attack: false, verdict: 'block', reasons: [{ code: 'cluster_confirmed_abuse' }] },
    ];
    const t = score(small, blocked, fused, []);
    expect(t.pairwise_precision).to.be.below(1);
    expect(t).to.deep.include({ innocent_blocked: 1, innocent_blocked_through_graph: 1, pairwise_recall: 1 });
    // A block by a hub's mark is a conviction through the graph too.
    const byHub = score(small, [{ ...blocked[0]!, reasons: [{ code: 'hub_confirmed_abuse' }] }], perfect, []);
    expect(byHub).to.deep.include({ innocent_blocked: 1, innocent_blocked_through_graph: 1 });
  });

  it('scores the members of rings past the hub threshold after the first confirmation, and every signup of a team or family held', () => {
    const small = generatePopulation({
      households: 0,
      offices: 0,
      kiosks: 0,
      hotspots: 0,
      loners: 400,
      rings: 0,
      takeovers: 0,
      teams: 1,
      families: 1,
      farms: 1,
      mistakenMarks: 0,
    });
    const farm = small.people.filter((p) => !p.honest);
    const first = 1000;
    const after = farm.map((p, i) => ({
      person: p.id,
      at: first + 1,
      eventType: 'login',
      attack: false,
      // Every member but one caught.
      verdict: i === 0 ? 'allow' : 'review',
      reasons: i === 0 ? [] : [{ code: 'hub_confirmed_abuse' }],
    }));
    const before = { person: farm[1]!.id, at: first - 1, eventType: 'signup', attack: false, verdict: 'allow', reasons: [] };
    const team = small.people.filter((p) => p.setting === 'team');
    const family = small.people.filter((p) => p.setting === 'family');
    const signup = (p: { id: number }, verdict: string, code?: string) => ({
      person: p.id,
      at: 1,
      eventType: 'signup',
      attack: false,
      verdict,
      reasons: code ? [{ code, ...(code === 'identity_cluster' && { detail: { rule: 'identity_cluster.min_accounts' } }) }] : [],
    });
    const decisions: Decision[] = [
      before,
      ...after,
      signup(team[0]!, 'review', 'velocity_ip_signups'),
      ...team.slice(1).map((p) => signup(p, 'allow')),
      signup(family[0]!, 'review', 'identity_cluster'),
      signup(family[1]!, 'block', 'velocity_device_signups'),
      ...family.slice(2).map((p) => signup(p, 'allow')),
    ];
    const s = score(small, decisions, new Map(), [{ at: first, account: farm[0]!.account, mistaken: false }]);
    expect(s).to.deep.include({ hub_ring_members: farm.length, hub_ring_members_flagged: farm.length - 1 });
    expect(s.ring_events_after_first_confirmation).to.equal(farm.length);
    expect(s.team_onboarding).to.deep.include({ signups: team.length, held_or_blocked: 1, by_cluster_reason: 0 });
    expect(s.team_onboarding.codes).to.deep.equal({ velocity_ip_signups: 1 });
    expect(s.family_plan).to.deep.include({ signups: family.length, held_or_blocked: 2, by_cluster_reason: 1 });
    expect(s.family_plan.codes).to.deep.equal({ identity_cluster: 1, velocity_device_signups: 1 });
  });
});
