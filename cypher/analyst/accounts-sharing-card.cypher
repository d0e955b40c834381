// accounts-sharing-card: the accounts that used one card fingerprint.
// Parameters: $tenantId, $mode, $card (payment.card_fingerprint), $limit.
// Returns: account, firstSeenAt (epoch ms of the account's first use of the card).
MATCH (:Card {tenantId: $tenantId, mode: $mode, kind: 'card', value: $card})<-[l:LINKED]-(a:Account)
RETURN a.externalId AS account, l.firstSeenAt AS firstSeenAt
ORDER BY firstSeenAt
LIMIT $limit
