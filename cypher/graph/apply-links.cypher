// apply-links: applies a batch of outbox links, in order, in one transaction. Each CALL sees the
// writes of the links before it. Run only by the graph writer, which holds the scope's lane, so
// no two transactions ever merge the same clusters at once (no lost updates, no deadlocks).
// Idempotent per event id: an event's contribution (trial start, conversion, card) is counted
// once, however often its links are applied (a retried batch, a PATCH adding the account).
// IP addresses and user agents are never passed in: they do not link identities.
// Each identifier carries the tenant's link policy for its kind (docs/graph.md, "Link policy"):
// whether it links, its hub threshold and how long a link lasts unseen. An identifier that stops
// linking here (it became a hub) leaves its cluster, and its cluster's id is returned so the
// writer splits it into the parts that stay connected without it, in the same transaction. A hub
// whose count falls back to its threshold (an anonymous event it counted bound to an account it
// already counted) links again, and the clusters of its accounts are returned with this link's to
// be merged the same way, so the graph joins its accounts wherever the evidence in Postgres links them.
// Parameters: $links, a list of {tenantId, mode, eventId, eventType, at (epoch ms),
//   account (string|null), ids (list of {kind, value, links (bool|null), hub (int|null),
//   expiryMs (int|null)}, distinct), card (string|null), cardCountry (string|null), hubThreshold
//   (int, for ids without hub), clusterId (id for a cluster this link creates)}.
// Returns one row: applied (the number of links), split (list of {tenantId, mode, id}: clusters
//   an identifier left when it became a hub).
UNWIND $links AS l
CALL {
  WITH l
  MERGE (e:Event {tenantId: l.tenantId, mode: l.mode, id: l.eventId})
    ON CREATE SET e.type = l.eventType, e.at = l.at, e.counted = false, e.card = l.card, e.cardCountry = l.cardCountry
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
      ON CREATE SET i.accounts = 0, i.anonymous = 0, i.hub = false, i.linking = coalesce(id.links, true), i.firstSeenAt = l.at, i.lastSeenAt = l.at
    FOREACH (_ IN CASE WHEN l.at > i.lastSeenAt THEN [1] ELSE [] END | SET i.lastSeenAt = l.at)
    FOREACH (_ IN CASE WHEN id.kind = 'email' THEN [1] ELSE [] END | SET i:Email)
    FOREACH (_ IN CASE WHEN id.kind = 'device' THEN [1] ELSE [] END | SET i:Device)
    FOREACH (_ IN CASE WHEN id.kind = 'card' THEN [1] ELSE [] END | SET i:Card)
    // The hub guard counts every account and every anonymous event that links the identifier;
    // an anonymous event that later gains its account counts as that account, not twice.
    MERGE (e)-[u:USED]->(i)
      ON CREATE SET u.anonymous = size(accounts) = 0, i.anonymous = i.anonymous + CASE WHEN size(accounts) = 0 THEN 1 ELSE 0 END,
        u.expiresAt = CASE WHEN size(accounts) = 0 AND id.expiryMs IS NOT NULL THEN l.at + id.expiryMs END
    FOREACH (_ IN CASE WHEN size(accounts) > 0 AND u.anonymous THEN [1] ELSE [] END | SET u.anonymous = false, u.expiresAt = null, i.anonymous = i.anonymous - 1)
    WITH l, id, i, accounts
    CALL {
      WITH l, id, i, accounts
      UNWIND accounts AS a
      // A link lasts expiryMs unseen (none: for ever); seen again, it lives on, and one that had
      // expired links again.
      MERGE (a)-[k:LINKED]->(i)
        ON CREATE SET k.firstSeenAt = l.at, k.lastSeenAt = l.at, i.accounts = i.accounts + 1,
          k.expiresAt = CASE WHEN id.expiryMs IS NOT NULL THEN l.at + id.expiryMs END
      FOREACH (_ IN CASE WHEN l.at > coalesce(k.lastSeenAt, k.firstSeenAt) THEN [1] ELSE [] END |
        SET k.lastSeenAt = l.at, k.expiresAt = CASE WHEN id.expiryMs IS NOT NULL THEN l.at + id.expiryMs END, k.expiredAt = null)
      RETURN count(*) AS linked
    }
    // What the link policy says of it, kept for a forget that lowers its counts (apply-forgets).
    WITH l, id, i, coalesce(id.hub, l.hubThreshold) AS hubAt
    SET i.hubAt = hubAt, i.policyLinks = coalesce(id.links, true)
    WITH l, i, NOT i.hub AND i.accounts + i.anonymous > hubAt AS becomesHub,
         // A hub whose count fell back to its threshold (an anonymous event it counted is bound to
         // an account it already counted) links again, as Postgres's evidence says: the
         // clusters of the accounts it links are merged after this statement.
         i.hub AND i.accounts + i.anonymous <= hubAt AS rejoins
    FOREACH (_ IN CASE WHEN becomesHub THEN [1] ELSE [] END | SET i.hub = true, i.linking = false)
    // No longer a hub; it links again if its kind and value do.
    FOREACH (_ IN CASE WHEN rejoins THEN [1] ELSE [] END | SET i.hub = false, i.linking = coalesce(i.policyLinks, true))
    WITH l, i, becomesHub, rejoins
    // A hub leaves its cluster: the accounts it fused are split after this statement.
    CALL {
      WITH i, becomesHub
      MATCH (i)-[r:IN]->(hc:Cluster) WHERE becomesHub
      SET hc.size = hc.size - 1
      DELETE r
      RETURN collect({tenantId: hc.tenantId, mode: hc.mode, id: hc.id}) AS left
    }
    CALL {
      WITH i, rejoins
      MATCH (ra:Account)-[:LINKED]->(i) WHERE rejoins AND i.linking
      MATCH (ra)-[:IN]->(rc:Cluster)
      RETURN collect(DISTINCT {tenantId: rc.tenantId, mode: rc.mode, id: rc.id}) AS rejoined
    }
    RETURN collect(i) AS identifiers, reduce(s = [], x IN collect(left) + collect(rejoined) | s + x) AS split, any(r IN collect(rejoins) WHERE r) AS rejoinedAny
  }
  WITH l, e, accounts, split, rejoinedAny, accounts + [i IN identifiers WHERE NOT i.hub AND coalesce(i.linking, true)] AS members
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
  WITH l, e, accounts, split, rejoinedAny, members, clusters,
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
        c.cardCountry = coalesce(c.cardCountry, []) + coalesce(other.cardCountry, []),
        c.abuse = coalesce(c.abuse, []) + [k IN coalesce(other.abuse, []) WHERE NOT k IN coalesce(c.abuse, [])],
        c.accountAt = (coalesce(c.accountAt, []) + coalesce(other.accountAt, []))[-100..]
    WITH c, other
    // A cluster whose split is not finished passes that on (src/graph/split-in-steps.ts): the
    // split then recomputes the merged cluster's parts.
    FOREACH (_ IN CASE WHEN other:Splitting THEN [1] ELSE [] END |
      SET c:Splitting, c.splitAt = CASE WHEN c.splitAt IS NULL OR c.splitAt < other.splitAt THEN other.splitAt ELSE c.splitAt END)
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
    SET c.size = c.size + 1, c.accounts = c.accounts + CASE WHEN m:Account THEN 1 ELSE 0 END,
        c.accountAt = CASE WHEN m:Account THEN (coalesce(c.accountAt, []) + [m.firstSeenAt])[-100..] ELSE c.accountAt END
    RETURN count(*) AS attached
  }
  // The event's own contribution, once. Cards older than a day are dropped, at most 50 kept.
  WITH l, e, accounts, split, rejoinedAny, c, NOT e.counted AS fresh
  WITH l, e, accounts, split, rejoinedAny, c, fresh,
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
  // Marks about this event, its account or its email applied before any of them was in the graph
  // (feedback on an event that linked nothing until a PATCH bound it, say) hold from now on, as
  // they would had the link come first: they are put on their subject, and the
  // cluster's facts recomputed after this statement.
  WITH l, e, accounts, split, rejoinedAny, c
  CALL {
    WITH l, e, accounts
    CALL {
      WITH l, e
      MATCH (f:Feedback {tenantId: l.tenantId, mode: l.mode, anchorKind: 'event', anchorValue: l.eventId})
      RETURN f, e AS x
      UNION
      WITH l, accounts
      UNWIND accounts AS a
      MATCH (f:Feedback {tenantId: l.tenantId, mode: l.mode, anchorKind: 'account', anchorValue: a.externalId})
      RETURN f, a AS x
      UNION
      WITH l
      UNWIND [id IN l.ids WHERE id.kind = 'email'] AS id
      MATCH (f:Feedback {tenantId: l.tenantId, mode: l.mode, anchorKind: 'email', anchorValue: id.value})
      MATCH (x:Identifier {tenantId: l.tenantId, mode: l.mode, kind: 'email', value: id.value})
      RETURN f, x
    }
    WITH f, x WHERE f.retractedAt IS NULL AND NOT EXISTS { (f)-[:ON]->() }
    MERGE (f)-[:ON]->(x)
    RETURN count(*) AS placed
  }
  // A standing confirmed_abuse mark about this event, its account or an email it used is about the
  // account: its `confirmedAt` (cypher/graph/recompute-account-marks) falls to the earliest one.
  CALL {
    WITH l, e, accounts
    UNWIND accounts AS a
    CALL {
      WITH e
      MATCH (f:Feedback)-[:ON]->(e)
      RETURN f
      UNION
      WITH a
      MATCH (f:Feedback)-[:ON]->(a)
      RETURN f
      UNION
      WITH l
      UNWIND [id IN l.ids WHERE id.kind = 'email'] AS id
      MATCH (f:Feedback)-[:ON]->(:Identifier {tenantId: l.tenantId, mode: l.mode, kind: 'email', value: id.value})
      RETURN f
    }
    WITH a, min(CASE WHEN f.outcome = 'confirmed_abuse' AND f.retractedAt IS NULL THEN f.at END) AS markedAt
    WITH a, markedAt WHERE markedAt IS NOT NULL AND (a.confirmedAt IS NULL OR markedAt < a.confirmedAt)
    SET a.confirmedAt = markedAt
    RETURN count(*) AS flagged
  }
  // A hub that links again, or a mark placed: this link's cluster is recomputed (and merged).
  RETURN split + CASE WHEN (rejoinedAny OR placed > 0) AND c IS NOT NULL THEN [{tenantId: c.tenantId, mode: c.mode, id: c.id}] ELSE [] END AS split
}
RETURN count(*) AS applied, reduce(s = [], x IN collect(split) | s + x) AS split
