// velocity_distinct_cards / velocity_card_countries: too many distinct cards, or card countries,
// used across the cluster in 24 h (this event's card included; the graph counts the window).
import { change, type Rule } from '../rule.js';

function clusterCountRule(code: string, field: 'distinctCards24h' | 'distinctCardCountries24h'): Rule {
  return {
    code,
    evaluate: (s, p) => {
      const n = s.graph?.[field];
      return n !== undefined && p.over !== undefined && n > p.over
        ? { detail: { count: n, threshold: p.over, window_seconds: p.windowSeconds ?? 0, rule: `${code}.over` } }
        : undefined;
    },
    relax: (s, p) => [change('graph', field, s.graph?.[field], p.over ?? null, `${code}.over`)],
  };
}

export const velocityDistinctCards = clusterCountRule('velocity_distinct_cards', 'distinctCards24h');
export const velocityCardCountries = clusterCountRule('velocity_card_countries', 'distinctCardCountries24h');
