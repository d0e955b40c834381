// velocity_distinct_cards / velocity_card_countries: too many distinct cards, or card countries,
// used across the cluster in 24 h (this event's card included).
import type { Rule } from '../rule.js';
import type { GraphSignal } from '../types.js';

function clusterCountRule(code: string, field: 'distinctCards24h' | 'distinctCardCountries24h'): Rule {
  return {
    code,
    evaluate: (s, p) => {
      const n = s.graph?.[field as keyof GraphSignal] as number | undefined;
      return n !== undefined && p.over !== undefined && n > p.over ? { detail: { count: n, threshold: p.over } } : undefined;
    },
  };
}

export const velocityDistinctCards = clusterCountRule('velocity_distinct_cards', 'distinctCards24h');
export const velocityCardCountries = clusterCountRule('velocity_card_countries', 'distinctCardCountries24h');
