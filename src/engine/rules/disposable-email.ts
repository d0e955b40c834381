// disposable_email: the registrable domain belongs to a disposable-address provider.
import { change, fired, type Rule } from '../rule.js';

export const disposableEmail: Rule = {
  code: 'disposable_email',
  evaluate: (s) =>
    s.email?.disposable && !s.email.malformed ? fired({ domain: s.email.registrableDomain ?? s.email.domain ?? '' }) : undefined,
  relax: () => [change('email', 'disposable', true, false, 'disposable_email')],
};
