// prepaid_card: the card's funding is prepaid. Unknown funding never fires.
import { change, fired, type Rule } from '../rule.js';

export const prepaidCard: Rule = {
  code: 'prepaid_card',
  evaluate: (s) => (s.payment?.funding === 'prepaid' ? fired() : undefined),
  relax: () => [change('payment', 'funding', 'prepaid', 'credit', 'prepaid_card')],
};
