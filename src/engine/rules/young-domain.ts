// young_domain: the email domain was registered fewer than `underDays` days ago.
import { fired, type Rule } from '../rule.js';

export const youngDomain: Rule = {
  code: 'young_domain',
  evaluate: (s, p) => {
    const age = s.email?.domainAgeDays;
    return age !== undefined && age < (p.underDays ?? 30) ? fired({ age_days: age }) : undefined;
  },
};
