// prepaid_card: the card's funding is prepaid. Unknown funding never fires.
import { fired, type Rule } from '../rule.js';

export const prepaidCard: Rule = { code: 'prepaid_card', evaluate: (s) => (s.payment?.funding === 'prepaid' ? fired() : undefined) };
