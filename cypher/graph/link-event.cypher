// link-event: links one screened event to its account and identifiers, keeps cluster membership
// incrementally (joining clusters merges the smaller ones into the largest), and returns the
// cluster's facts as they were before this event's own contribution. One round trip.
// Idempotent per event id: replaying it (the repair job, PATCH) links but never counts twice.
// IP addresses and user agents are never passed in: they do not link identities.
// Parameters: $tenantId, $mode, $eventId, $eventType, $at (epoch ms), $account (string|null),
//   $ids (list of {kind, value}, distinct), $card (string|null), $cardCountry (string|null),
//   $hubThreshold (int), $clusterId (id for a new cluster), $newEvent (bool: count this event).
// Writes are kept to what changes, so hot shared nodes are rarely write-locked.
// Returns one row: clusterId, accounts, confirmedAbuse, falsePositive, chargebacks, convertedAt,
//   lastTrialStartAt, suppressed, distinctCards24h, distinctCountries24h, accountEvents,
//   deviceSeen, hubs.
MERGE (e:Event {tenantId: $tenantId, mode: $mode, id: $eventId})
  ON CREATE SET e.type = $eventType, e.at = $at, e.created = true
WITH e, coalesce(e.created, false) AND $newEvent AS fresh
REMOVE e.created
WITH e, fresh

CALL {
  WITH e
  UNWIND CASE WHEN $account IS NULL THEN [] ELSE [$account] END AS externalId
  MERGE (a:Account {tenantId: $tenantId, mode: $mode, externalId: externalId})
    ON CREATE SET a.firstSeenAt = $at, a.history = false
  MERGE (e)-[:BY]->(a)
  RETURN collect(a) AS accounts, sum(CASE WHEN a.history THEN 1 ELSE 0 END) AS accountEvents
}

CALL {
  WITH e, accounts
  UNWIND $ids AS id
  MERGE (i:Identifier {tenantId: $tenantId, mode: $mode, kind: id.kind, value: id.value})
    ON CREATE SET i.accounts = 0, i.hub = false, i.firstSeenAt = $at, i.lastSeenAt = $at
  // Written at most once a minute: a shared identifier is not write-locked by every event.
  FOREACH (_ IN CASE WHEN i.lastSeenAt < $at - 60000 THEN [1] ELSE [] END | SET i.lastSeenAt = $at)
  FOREACH (_ IN CASE WHEN id.kind = 'email' THEN [1] ELSE [] END | SET i:Email)
  FOREACH (_ IN CASE WHEN id.kind = 'device' THEN [1] ELSE [] END | SET i:Device)
  FOREACH (_ IN CASE WHEN id.kind = 'card' THEN [1] ELSE [] END | SET i:Card)
  MERGE (e)-[:USED]->(i)
  WITH i, accounts
  CALL {
    WITH i, accounts
    UNWIND accounts AS a
    MERGE (a)-[l:LINKED]->(i)
      ON CREATE SET l.firstSeenAt = $at, l.created = true, i.accounts = i.accounts + 1
    WITH l, coalesce(l.created, false) AS created
    REMOVE l.created
    RETURN sum(CASE WHEN created THEN 0 ELSE 1 END) AS alreadyLinked
  }
  // The hub guard: past the threshold an identifier links no further accounts into clusters.
  FOREACH (_ IN CASE WHEN NOT i.hub AND i.accounts > $hubThreshold THEN [1] ELSE [] END | SET i.hub = true)
  RETURN collect(i) AS identifiers,
         sum(CASE WHEN i.kind = 'device' AND alreadyLinked > 0 THEN 1 ELSE 0 END) AS deviceSeen,
         [x IN collect(i) WHERE x.hub | x.kind] AS hubs
}

WITH e, fresh, accounts, accountEvents, deviceSeen, hubs, accounts + [i IN identifiers WHERE NOT i.hub] AS members
CALL {
  WITH members
  UNWIND members AS m
  MATCH (m)-[:IN]->(c:Cluster)
  RETURN collect(DISTINCT c) AS clusters
}

// The largest existing cluster survives a merge (fewest members move), else a new one.
CALL {
  WITH members, clusters
  UNWIND CASE WHEN size(members) > 0 AND size(clusters) = 0 THEN [1] ELSE [] END AS _
  CREATE (n:Cluster {tenantId: $tenantId, mode: $mode, id: $clusterId, size: 0, accounts: 0,
    confirmedAbuse: false, falsePositive: false, chargebacks: 0, suppressed: [], recentCards: []})
  RETURN collect(n) AS created
}
WITH e, fresh, accounts, accountEvents, deviceSeen, hubs, members, clusters,
     coalesce(head(created), reduce(best = head(clusters), x IN clusters | CASE WHEN x.size > best.size THEN x ELSE best END)) AS c

CALL {
  WITH c, clusters
  UNWIND [x IN clusters WHERE x <> c] AS other
  SET c.size = c.size + other.size,
      c.accounts = c.accounts + other.accounts,
      c.confirmedAbuse = c.confirmedAbuse OR other.confirmedAbuse,
      c.falsePositive = c.falsePositive OR other.falsePositive,
      c.chargebacks = c.chargebacks + other.chargebacks,
      c.lastTrialStartAt = CASE WHEN coalesce(other.lastTrialStartAt, 0) > coalesce(c.lastTrialStartAt, 0) THEN other.lastTrialStartAt ELSE c.lastTrialStartAt END,
      c.convertedAt = CASE WHEN c.convertedAt IS NULL OR coalesce(other.convertedAt, c.convertedAt) < c.convertedAt THEN other.convertedAt ELSE c.convertedAt END,
      c.suppressed = c.suppressed + [s IN other.suppressed WHERE NOT s IN c.suppressed],
      c.recentCards = c.recentCards + other.recentCards
  WITH c, other
  CALL {
    WITH c, other
    MATCH (m)-[r:IN]->(other)
    CREATE (m)-[:IN]->(c)
    DELETE r
    RETURN count(*) AS moved
  }
  DETACH DELETE other
  RETURN count(*) AS merged
}

CALL {
  WITH c, members
  UNWIND members AS m
  WITH c, m WHERE NOT (m)-[:IN]->(:Cluster)
  CREATE (m)-[:IN]->(c)
  SET c.size = c.size + 1, c.accounts = c.accounts + CASE WHEN m:Account THEN 1 ELSE 0 END
  RETURN count(*) AS attached
}

// Facts as they stood before this event; then this event's own contribution, once.
WITH e, fresh, accounts, accountEvents, deviceSeen, hubs, c,
     [x IN coalesce(c.recentCards, []) WHERE toInteger(split(x, '|')[0]) >= $at - 86400000] AS cards24h,
     c.lastTrialStartAt AS lastTrialStartAt
WITH e, fresh, accounts, accountEvents, deviceSeen, hubs, c, lastTrialStartAt,
     cards24h + CASE WHEN $card IS NULL THEN [] ELSE [toString($at) + '|' + $card + '|' + coalesce($cardCountry, '')] END AS cardsNow
WITH e, fresh, accounts, accountEvents, deviceSeen, hubs, c, lastTrialStartAt, cardsNow,
     reduce(s = [], x IN cardsNow | CASE WHEN split(x, '|')[1] IN s THEN s ELSE s + split(x, '|')[1] END) AS distinctCards,
     reduce(s = [], x IN cardsNow | CASE WHEN split(x, '|')[2] = '' OR split(x, '|')[2] IN s THEN s ELSE s + split(x, '|')[2] END) AS distinctCountries
// Only events that change a fact write the cluster node: most events leave it unlocked.
FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND $card IS NOT NULL THEN [1] ELSE [] END | SET c.recentCards = cardsNow[-50..])
FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND $eventType = 'trial_start' THEN [1] ELSE [] END | SET c.lastTrialStartAt = $at)
FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND $eventType = 'trial_convert' AND c.convertedAt IS NULL THEN [1] ELSE [] END | SET c.convertedAt = $at)
FOREACH (a IN CASE WHEN fresh THEN [x IN accounts WHERE NOT x.history] ELSE [] END | SET a.history = true)
RETURN c.id AS clusterId, coalesce(c.accounts, 0) AS accounts, coalesce(c.confirmedAbuse, false) AS confirmedAbuse,
       coalesce(c.falsePositive, false) AS falsePositive, coalesce(c.chargebacks, 0) AS chargebacks,
       c.convertedAt AS convertedAt, lastTrialStartAt, coalesce(c.suppressed, []) AS suppressed,
       size(distinctCards) AS distinctCards24h, size(distinctCountries) AS distinctCountries24h,
       accountEvents, deviceSeen > 0 AS deviceSeen, hubs
