// read-cluster: the facts of the cluster an event would join, read without writing anything. It
// finds the clusters of the event's account and of its identifiers, and those of the links still
// waiting in the outbox that this event joins (pending: committed before this verdict began, not
// yet applied), and combines their facts as if they were already merged, which is what the graph
// writer will do when it applies them. An identifier that does not link (a hub, one this event
// would make a hub, an excluded value, a kind the tenant's link policy turns off) joins nothing.
// When the clusters carry confirmed abuse, it also finds the evidence: the shortest path of live
// links from this event's account or identifiers to a marked subject (the kinds of the
// identifiers on it) and the time of that mark.
// It also reads what an identifier that does not link because it is a hub (this event's, one this
// event makes a hub, or one this event's account already links to) still knows: the other
// accounts on it with a live confirmed_abuse mark (on the account, on one of its events, or on
// its email), and how fast it became a hub (the time from its first
// account's link to the link that passed its threshold). A hub of more than hubScan accounts is
// not searched (a placeholder value; its tenant excludes it).
// One parameter, $read, a map: Neo4j keeps a plan per type and size class (0, 1, 2-10, 11-100,
// more) of each top-level string and list parameter, but one plan for a map whatever it holds,
// and planning this statement takes longer than a verdict's deadline (identity-graph.ts).
// $read holds: tenantId, mode, account (string|null), ids (list of {kind, value, key (its
//   identifierKey, src/graph/identity-graph.ts), links (bool|null), hub (int|null)}), hubThreshold
//   (int, for ids without hub), since (epoch ms: cards used at or after it count), at (the
//   event's time, epoch ms), hubScan (int), recentSince (epoch ms: accounts first seen at or
//   after it are recent), pending (list of {account (string|null), ids (list of {kind, value,
//   links}), keys (what it joins through: the outbox's keys)}).
// Returns one row: clusterId (the largest cluster, or null), accounts (linked accounts, this
//   event's included), recentAccounts (of those, first seen since recentSince), confirmedAbuse,
//   falsePositive, chargebacks, convertedAt, lastTrialStartAt, suppressed, cards (list of {card,
//   country} used since since), accountHistory, deviceSeen, viaKinds (kinds shared with other
//   accounts), evidence ({via, at} or null), joinKeys (the keys of this event's identifiers that
//   link: a pending link matters only through them or the account), appliedSeq (the
//   seq of the scope's last link applied, read before anything else, or null: every link up to it
//   is in what this read sees; the verdict's write looks for the links applied after it),
//   hub ({kind, accounts, confirmed, formedMs, markedAt}: of this event's hubs with marked
//   accounts, the one with the most, a verified kind first; or null).
// replan=skip: the plan, once made, stays while statistics change (a new database's counts grow
// from nothing): replanning costs a verdict its deadline, and every lookup here is a seek of a
// unique index whatever the counts.
CYPHER replan=skip
OPTIONAL MATCH (stamp:LinksApplied {tenantId: $read.tenantId, mode: $read.mode})
WITH stamp.seq AS appliedSeq
OPTIONAL MATCH (a:Account {tenantId: $read.tenantId, mode: $read.mode, externalId: $read.account})
CALL {
  WITH a
  UNWIND $read.ids AS id
  OPTIONAL MATCH (i:Identifier {tenantId: $read.tenantId, mode: $read.mode, kind: id.kind, value: id.value})
  OPTIONAL MATCH (a)-[k:LINKED]->(i)
  // This event adds one link to i unless its account already holds one; so does each pending
  // link of another account that uses it, unless it was applied meanwhile (then i counts it).
  WITH id, i, k, size([p IN $read.pending WHERE coalesce(p.account, '') <> coalesce($read.account, '')
                        AND any(x IN p.ids WHERE x.kind = id.kind AND x.value = id.value)
                        AND NOT EXISTS { (:Account {tenantId: $read.tenantId, mode: $read.mode, externalId: p.account})-[:LINKED]->(i) }]) AS pendingUses
  WITH id, i, k, pendingUses, coalesce(i.accounts, 0) + coalesce(i.anonymous, 0) + pendingUses + CASE WHEN k IS NULL THEN 1 ELSE 0 END AS links
  WITH id, i, k, links,
       CASE WHEN i IS NULL THEN coalesce(id.links, true) ELSE coalesce(i.linking, true) AND NOT i.hub END
         AND links <= coalesce(id.hub, $read.hubThreshold) AS joins
  RETURN collect(CASE WHEN joins THEN i END) AS linking,
         collect(CASE WHEN i IS NOT NULL AND NOT joins AND coalesce(id.links, true) AND coalesce(i.policyLinks, true)
                      AND (i.hub OR links > coalesce(id.hub, $read.hubThreshold)) THEN {i: i, at: coalesce(id.hub, $read.hubThreshold)} END) AS hubs,
         collect(CASE WHEN joins THEN id.key END) AS joinKeys,
         collect(DISTINCT CASE WHEN joins AND links > 1 THEN id.kind END) AS sharedKinds,
         count(CASE WHEN id.kind = 'device' AND k IS NOT NULL THEN 1 END) > 0 AS deviceSeen
}
// The account's own live links, walked once: the hubs it already links to (a card it paid with
// before, on a login without one), and the kinds it shares with other accounts.
CALL {
  WITH a
  OPTIONAL MATCH (a)-[k:LINKED]->(j:Identifier)
  WHERE k.expiredAt IS NULL
  RETURN collect(CASE WHEN j.hub AND coalesce(j.policyLinks, true) THEN {i: j, at: coalesce(j.hubAt, $read.hubThreshold)} END) AS accountHubs,
         collect(DISTINCT CASE WHEN coalesce(j.linking, true) AND NOT j.hub AND j.accounts > 1 THEN j.kind END) AS accountKinds
}
// The hubs' marked accounts: those with `confirmedAt`, the time of the earliest confirmed_abuse
// mark that stands about them (on the account, on one of its events, or on an email it links),
// which the graph writer keeps (cypher/graph/recompute-account-marks). A hub is searched only up
// to $read.hubScan accounts.
CALL {
  WITH a, hubs, accountHubs
  UNWIND hubs + accountHubs AS hub
  WITH DISTINCT a, hub.i AS h, hub.at AS hubAt WHERE h.accounts <= $read.hubScan
  CALL {
    WITH a, h
    MATCH (x:Account)-[k:LINKED]->(h)
    WHERE x.confirmedAt IS NOT NULL AND k.expiredAt IS NULL AND (a IS NULL OR x <> a)
    RETURN count(x) AS confirmed, min(x.confirmedAt) AS markedAt
  }
  WITH h, hubAt, confirmed, markedAt WHERE confirmed > 0
  // How fast it formed, read only for a hub with marked accounts.
  CALL {
    WITH h
    MATCH (:Account)-[k:LINKED]->(h) WHERE k.expiredAt IS NULL
    WITH k.firstSeenAt AS linkedAt ORDER BY linkedAt
    RETURN collect(linkedAt) AS times
  }
  WITH h, size(times) AS accounts, confirmed, markedAt,
       // The link that passed the threshold, or this event's when it is the one.
       coalesce(times[toInteger(hubAt)], $read.at) - times[0] AS formedMs
  ORDER BY confirmed DESC, CASE WHEN h.kind IN ['email', 'device', 'card'] THEN 0 ELSE 1 END, accounts DESC
  RETURN head(collect({kind: h.kind, accounts: accounts, confirmed: confirmed, formedMs: formedMs, markedAt: markedAt})) AS hub
}
// The pending links this event joins: same account, or an identifier this event links through.
WITH appliedSeq, a, linking, sharedKinds, accountKinds, deviceSeen, joinKeys, hub,
     [p IN $read.pending WHERE (p.account IS NOT NULL AND p.account = $read.account) OR any(k IN p.keys WHERE k IN joinKeys)] AS near
CALL {
  WITH near
  UNWIND near AS p
  UNWIND p.ids AS x
  MATCH (i:Identifier {tenantId: $read.tenantId, mode: $read.mode, kind: x.kind, value: x.value})
  WHERE coalesce(i.linking, true) AND NOT i.hub
  RETURN collect(DISTINCT i) AS nearIds
}
CALL {
  WITH near
  UNWIND near AS p
  WITH DISTINCT p.account AS ext WHERE ext IS NOT NULL AND ext <> coalesce($read.account, '')
  OPTIONAL MATCH (:Account {tenantId: $read.tenantId, mode: $read.mode, externalId: ext})-[:IN]->(bc:Cluster)
  RETURN collect(DISTINCT bc) AS nearClusters, count(CASE WHEN bc IS NULL THEN 1 END) AS nearNew
}
CALL {
  WITH a, linking, nearIds
  UNWIND CASE WHEN a IS NULL THEN linking + nearIds ELSE [a] + linking + nearIds END AS m
  MATCH (m)-[:IN]->(c:Cluster)
  RETURN collect(DISTINCT c) AS memberClusters, count(CASE WHEN m = a THEN 1 END) > 0 AS accountClustered
}
WITH appliedSeq, a, linking, deviceSeen, nearNew, sharedKinds, accountKinds, joinKeys, hub,
     memberClusters + [c IN nearClusters WHERE NOT c IN memberClusters] AS clusters,
     $read.account IS NOT NULL AND NOT accountClustered AS newAccount
WITH appliedSeq, a, linking, deviceSeen, nearNew, sharedKinds, accountKinds, joinKeys, hub, clusters, newAccount,
     reduce(s = [], c IN clusters | s + [k IN coalesce(c.abuse, []) WHERE NOT k IN s]) AS abuseKeys
CALL {
  WITH a, linking, abuseKeys
  UNWIND abuseKeys[0..5] AS key
  MATCH (f:Feedback {tenantId: $read.tenantId, mode: $read.mode, key: key})-[:ON]->(x)
  WHERE f.retractedAt IS NULL
  // An event's mark is about its account, or (an event without one) the identifiers it used.
  CALL {
    WITH x
    OPTIONAL MATCH (x:Event)-[:BY]->(xa:Account)
    OPTIONAL MATCH (x:Event)-[:USED]->(xi:Identifier) WHERE xa IS NULL AND coalesce(xi.linking, true) AND NOT xi.hub
    WITH x, xa, collect(xi) AS used
    RETURN CASE WHEN x:Event THEN coalesce(xa, head(used)) ELSE x END AS target
  }
  WITH a, linking, f, target WHERE target IS NOT NULL
  UNWIND CASE WHEN a IS NULL THEN linking ELSE [a] + linking END AS s
  CALL {
    WITH s, target
    WITH s, target WHERE s = target
    RETURN 0 AS hops, [s] AS path
    UNION
    WITH s, target
    WITH s, target WHERE s <> target
    MATCH p = shortestPath((s)-[:LINKED*..12]-(target))
    WHERE all(r IN relationships(p) WHERE r.expiredAt IS NULL)
      AND all(n IN nodes(p) WHERE n:Account OR (coalesce(n.linking, true) AND NOT n.hub))
    RETURN length(p) AS hops, nodes(p) AS path
  }
  // A path from one of the event's identifiers starts at the event's account when it has one.
  WITH f, CASE WHEN a IS NOT NULL AND s <> a THEN [a] + path ELSE path END AS path,
       hops + CASE WHEN a IS NOT NULL AND s <> a THEN 1 ELSE 0 END AS hops
  WITH f, path, hops ORDER BY hops, f.at
  RETURN head(collect({via: [n IN path WHERE n:Identifier | n.kind], at: f.at})) AS evidence
}
RETURN reduce(best = null, c IN clusters | CASE WHEN best IS NULL OR c.accounts > best.accounts THEN c ELSE best END).id AS clusterId,
       reduce(n = 0, c IN clusters | n + c.accounts) + CASE WHEN newAccount THEN 1 ELSE 0 END + nearNew AS accounts,
       reduce(n = 0, c IN clusters | n + size([t IN coalesce(c.accountAt, []) WHERE t >= $read.recentSince])) + CASE WHEN newAccount THEN 1 ELSE 0 END + nearNew AS recentAccounts,
       any(c IN clusters WHERE c.confirmedAbuse) AS confirmedAbuse,
       any(c IN clusters WHERE c.falsePositive) AS falsePositive,
       reduce(n = 0, c IN clusters | n + c.chargebacks) AS chargebacks,
       reduce(t = null, c IN clusters | CASE WHEN c.convertedAt IS NOT NULL AND (t IS NULL OR c.convertedAt < t) THEN c.convertedAt ELSE t END) AS convertedAt,
       reduce(t = null, c IN clusters | CASE WHEN c.lastTrialStartAt IS NOT NULL AND (t IS NULL OR c.lastTrialStartAt > t) THEN c.lastTrialStartAt ELSE t END) AS lastTrialStartAt,
       reduce(s = [], c IN clusters | s + [x IN c.suppressed WHERE NOT x IN s]) AS suppressed,
       reduce(s = [], c IN clusters | s + [j IN range(0, size(coalesce(c.cardAt, [])) - 1) WHERE c.cardAt[j] >= $read.since | {card: c.cardValue[j], country: c.cardCountry[j]}]) AS cards,
       coalesce(a.history, false) AS accountHistory,
       deviceSeen,
       reduce(s = [], k IN sharedKinds + accountKinds | CASE WHEN k IN s THEN s ELSE s + k END) AS viaKinds,
       evidence, joinKeys, appliedSeq, hub
