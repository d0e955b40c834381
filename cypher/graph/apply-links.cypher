// apply-links: applies a batch of outbox links, in order, in one transaction. Each CALL sees the
// writes of the links before it. Run only by the graph writer, which holds the scope's lane, so
// no two transactions ever merge the same clusters at once (no lost updates, no deadlocks).
// Idempotent per event id: an event's contribution (trial start, conversion, card) is counted
// once, however often its links are applied (a retried batch, a PATCH adding the account).
// IP addresses and user agents are never passed in: they do not link identities.
// Parameters: $links, a list of {tenantId, mode, eventId, eventType, at (epoch ms),
//   account (string|null), ids (list of {kind, value}, distinct), card (string|null),
//   cardCountry (string|null), hubThreshold (int), clusterId (id for a cluster this link creates)}.
// Returns one row: applied (the number of links).
UNWIND $links AS l
CALL {
  WITH l
  MERGE (e:Event {tenantId: l.tenantId, mode: l.mode, id: l.eventId})
    ON CREATE SET e.type = l.eventType, e.at = l.at, e.counted = false
  WITH l, e
  CALL {
    WITH l, e
    UNWIND CASE WHEN l.account IS NULL THEN [] ELSE [l.account] END AS externalId
    MERGE (a:Account {tenantId: l.tenantId, mode: l.mode, externalId: externalId})
      ON CREATE SET a.firstSeenAt = l.at, a.history = false
    MERGE (e)-[:BY]->(a)
    RETURN collect(a) AS accounts
  }
  CALL {
    WITH l, e, accounts
    UNWIND l.ids AS id
    MERGE (i:Identifier {tenantId: l.tenantId, mode: l.mode, kind: id.kind, value: id.value})
      ON CREATE SET i.accounts = 0, i.anonymous = 0, i.hub = false, i.firstSeenAt = l.at, i.lastSeenAt = l.at
    FOREACH (_ IN CASE WHEN l.at > i.lastSeenAt THEN [1] ELSE [] END | SET i.lastSeenAt = l.at)
    FOREACH (_ IN CASE WHEN id.kind = 'email' THEN [1] ELSE [] END | SET i:Email)
    FOREACH (_ IN CASE WHEN id.kind = 'device' THEN [1] ELSE [] END | SET i:Device)
    FOREACH (_ IN CASE WHEN id.kind = 'card' THEN [1] ELSE [] END | SET i:Card)
    // The hub guard counts every account and every anonymous event that links the identifier;
    // an anonymous event that later gains its account counts as that account, not twice.
    MERGE (e)-[u:USED]->(i)
      ON CREATE SET u.anonymous = size(accounts) = 0, i.anonymous = i.anonymous + CASE WHEN size(accounts) = 0 THEN 1 ELSE 0 END
    FOREACH (_ IN CASE WHEN size(accounts) > 0 AND u.anonymous THEN [1] ELSE [] END | SET u.anonymous = false, i.anonymous = i.anonymous - 1)
    WITH l, i, accounts
    CALL {
      WITH l, i, accounts
      UNWIND accounts AS a
      MERGE (a)-[k:LINKED]->(i)
        ON CREATE SET k.firstSeenAt = l.at, i.accounts = i.accounts + 1
      RETURN count(*) AS linked
    }
    FOREACH (_ IN CASE WHEN NOT i.hub AND i.accounts + i.anonymous > l.hubThreshold THEN [1] ELSE [] END | SET i.hub = true)
    RETURN collect(i) AS identifiers
  }
  WITH l, e, accounts, accounts + [i IN identifiers WHERE NOT i.hub] AS members
  CALL {
    WITH members
    UNWIND members AS m
    MATCH (m)-[:IN]->(c:Cluster)
    RETURN collect(DISTINCT c) AS clusters
  }
  CALL {
    WITH l, members, clusters
    UNWIND CASE WHEN size(members) > 0 AND size(clusters) = 0 THEN [1] ELSE [] END AS _
    CREATE (n:Cluster {tenantId: l.tenantId, mode: l.mode, id: l.clusterId, size: 0, accounts: 0,
      confirmedAbuse: false, falsePositive: false, chargebacks: 0, suppressed: [], cardAt: [], cardValue: [], cardCountry: []})
    RETURN collect(n) AS created
  }
  // The largest existing cluster survives a merge (fewest members move).
  WITH l, e, accounts, members, clusters,
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
        c.cardAt = coalesce(c.cardAt, []) + coalesce(other.cardAt, []),
        c.cardValue = coalesce(c.cardValue, []) + coalesce(other.cardValue, []),
        c.cardCountry = coalesce(c.cardCountry, []) + coalesce(other.cardCountry, [])
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
  // The event's own contribution, once. Cards older than a day are dropped, at most 50 kept.
  WITH l, e, accounts, c, NOT e.counted AS fresh
  WITH l, e, accounts, c, fresh,
       [j IN range(0, size(coalesce(c.cardAt, [])) - 1) WHERE c.cardAt[j] >= l.at - 86400000] AS keep
  FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND l.card IS NOT NULL THEN [1] ELSE [] END |
    SET c.cardAt = ([j IN keep | c.cardAt[j]] + [l.at])[-50..],
        c.cardValue = ([j IN keep | c.cardValue[j]] + [l.card])[-50..],
        c.cardCountry = ([j IN keep | c.cardCountry[j]] + [coalesce(l.cardCountry, '')])[-50..])
  FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND l.eventType = 'trial_start' AND coalesce(c.lastTrialStartAt, 0) < l.at THEN [1] ELSE [] END | SET c.lastTrialStartAt = l.at)
  FOREACH (_ IN CASE WHEN fresh AND c IS NOT NULL AND l.eventType = 'trial_convert' AND (c.convertedAt IS NULL OR c.convertedAt > l.at) THEN [1] ELSE [] END | SET c.convertedAt = l.at)
  FOREACH (_ IN CASE WHEN fresh THEN [1] ELSE [] END | SET e.counted = true)
  // Accounts of a counted event have history (account-takeover rules protect them).
  FOREACH (a IN [x IN accounts WHERE NOT x.history] | SET a.history = true)
  RETURN 1 AS done
}
RETURN count(*) AS applied
