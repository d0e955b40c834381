// young_domain: the email domain was registered fewer than `underDays` days ago.
import { change, fired, type Rule } from '../rule.js';

export const youngDomain: Rule = {
  code: 'young_domain',
  evaluate: (s, p) => {
    const age = s.email?.domainAgeDays;
    return age !== undefined && p.underDays !== undefined && age < p.underDays
      ? fired({ age_days: age, count: age, threshold: p.underDays, rule: 'young_domain.under_days' })
      : undefined;
  },
  relax: (s, p) => [change('email', 'domainAgeDays', s.email!.domainAgeDays, p.underDays!, 'young_domain.under_days')],
};
