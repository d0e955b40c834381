// apply-forgets: removes events from the identity graph (retention) or a person (erasure), applied
// by the graph writer in lane order like links and marks. For each forget: its events go; then
// every account it names, and every account of those events left with no event (an account that
// keeps events loses the links only the removed ones evidenced); then every
// identifier it names or those events and accounts used, once nothing else uses it (no remaining
// event, no remaining account): an identifier another account still uses stays. Feedback records
// it names go. The clusters that lost members get their counts recomputed and the removed cards
// dropped from their card lists; an emptied cluster goes. The others are marked with `trimmedAt`
// and returned: the graph writer then splits each into the parts that stay connected without what
// went, in the same transaction (src/graph/recluster.ts). With an erasureId, an (:Erasure) node records the counts once, so a
// re-applied batch neither counts twice nor fails.
// Parameters: $forgets, a list of {tenantId, mode, at (epoch ms), eventIds, accounts (external
//   ids), ids (list of {kind, value}), feedbackKeys, erasureId (string|null)}.
// Returns one row: applied (the number of forgets), trimmed (list of {tenantId, mode, id}: the
//   clusters that lost members and still have some).
UNWIND $forgets AS f
CALL {
  WITH f
  OPTIONAL MATCH (e:Event {tenantId: f.tenantId, mode: f.mode}) WHERE e.id IN f.eventIds
  OPTIONAL MATCH (e)-[:BY]->(a:Account)
  WITH f, collect(DISTINCT e) AS events, collect(DISTINCT a) AS byAccounts
  CALL {
    WITH events
    UNWIND events AS e
    MATCH (e)-[u:USED]->(i:Identifier)
    WITH i, sum(CASE WHEN u.anonymous THEN 1 ELSE 0 END) AS anonymous
    SET i.anonymous = i.anonymous - anonymous
    RETURN collect(i) AS usedIds
  }
  FOREACH (e IN events | DETACH DELETE e)
  RETURN size(events) AS eventCount, byAccounts, usedIds
}
// An account that keeps other events keeps only the links they evidence: a link to an identifier
// that only the removed events used goes (the account is not left joined through it).
CALL {
  WITH byAccounts
  UNWIND byAccounts AS a
  WITH a WHERE EXISTS { (:Event)-[:BY]->(a) }
  MATCH (a)-[k:LINKED]->(i:Identifier)
  WHERE NOT EXISTS { (e:Event)-[:BY]->(a) WHERE (e)-[:USED]->(i) }
  OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
  SET i.accounts = i.accounts - 1
  DELETE k
  RETURN collect(DISTINCT c) AS unlinkedClusters, collect(DISTINCT i) AS unlinkedIds
}
CALL {
  WITH f, byAccounts
  OPTIONAL MATCH (listed:Account {tenantId: f.tenantId, mode: f.mode}) WHERE listed.externalId IN f.accounts
  WITH byAccounts, collect(listed) AS listed
  WITH listed + [a IN byAccounts WHERE NOT a IN listed AND NOT EXISTS { (:Event)-[:BY]->(a) }] AS doomed
  UNWIND doomed AS a
  OPTIONAL MATCH (a)-[:IN]->(c:Cluster)
  OPTIONAL MATCH (a)-[:LINKED]->(i:Identifier)
  WITH a, c, collect(i) AS linked
  FOREACH (i IN linked | SET i.accounts = i.accounts - 1)
  DETACH DELETE a
  RETURN count(*) AS accountCount, collect(c) AS accountClusters, reduce(acc = [], l IN collect(linked) | acc + l) AS linkedIds
}
CALL {
  WITH f
  UNWIND f.ids AS x
  MATCH (i:Identifier {tenantId: f.tenantId, mode: f.mode, kind: x.kind, value: x.value})
  RETURN collect(i) AS listedIds
}
// A hub whose counts fell back to its threshold (apply-links keeps the threshold in force on it)
// and that something still uses links again, as Postgres's evidence says: it joins the
// cluster of one account it links, and those clusters are merged after this statement.
CALL {
  WITH usedIds, linkedIds, unlinkedIds
  UNWIND usedIds + linkedIds + unlinkedIds AS i
  WITH DISTINCT i
  WHERE i.hub AND i.hubAt IS NOT NULL AND i.accounts + i.anonymous <= i.hubAt
    AND (EXISTS { (:Event)-[:USED]->(i) } OR EXISTS { (:Account)-[:LINKED]->(i) })
  SET i.hub = false, i.linking = coalesce(i.policyLinks, true)
  WITH i
  OPTIONAL MATCH (rc:Cluster)<-[:IN]-(ra:Account)-[:LINKED]->(i) WHERE i.linking
  WITH i, collect(DISTINCT rc) AS rcs
  FOREACH (c IN rcs[0..1] | CREATE (i)-[:IN]->(c))
  RETURN reduce(acc = [], x IN collect(rcs) | acc + x) AS rejoinedClusters
}
CALL {
  WITH usedIds, linkedIds, listedIds, unlinkedIds
  UNWIND usedIds + linkedIds + listedIds + unlinkedIds AS i
  WITH DISTINCT i
  WHERE NOT EXISTS { (:Event)-[:USED]->(i) } AND NOT EXISTS { (:Account)-[:LINKED]->(i) }
  OPTIONAL MATCH (i)-[:IN]->(c:Cluster)
  WITH i, c, CASE WHEN i.kind = 'card' THEN i.value END AS card
  DETACH DELETE i
  RETURN count(*) AS identifierCount, collect(c) AS identifierClusters, collect(card) AS cards
}
CALL {
  WITH f
  UNWIND f.feedbackKeys AS key
  MATCH (fb:Feedback {tenantId: f.tenantId, mode: f.mode, key: key})
  DETACH DELETE fb
  RETURN count(*) AS feedbackCount
}
CALL {
  WITH f, accountClusters, identifierClusters, unlinkedClusters, rejoinedClusters, cards
  UNWIND accountClusters + identifierClusters + unlinkedClusters + rejoinedClusters AS c
  WITH DISTINCT f, c, cards
  WITH f, c, cards, COUNT { (m)-[:IN]->(c) } AS members, COUNT { (:Account)-[:IN]->(c) } AS accounts,
       [j IN range(0, size(coalesce(c.cardValue, [])) - 1) WHERE NOT c.cardValue[j] IN cards] AS keep
  SET c.size = members, c.accounts = accounts, c.trimmedAt = f.at,
      c.cardAt = [j IN keep | c.cardAt[j]], c.cardValue = [j IN keep | c.cardValue[j]], c.cardCountry = [j IN keep | c.cardCountry[j]]
  WITH c, members, {tenantId: c.tenantId, mode: c.mode, id: c.id} AS ref
  FOREACH (_ IN CASE WHEN members = 0 THEN [1] ELSE [] END | DETACH DELETE c)
  RETURN collect(CASE WHEN members > 0 THEN ref END) AS trimmed
}
CALL {
  WITH f, eventCount, accountCount, identifierCount
  UNWIND CASE WHEN f.erasureId IS NULL THEN [] ELSE [f.erasureId] END AS erasureId
  MERGE (x:Erasure {tenantId: f.tenantId, mode: f.mode, id: erasureId})
    ON CREATE SET x.at = f.at, x.events = eventCount, x.accounts = accountCount, x.identifiers = identifierCount
  RETURN count(x) AS recorded
}
RETURN count(*) AS applied, reduce(s = [], x IN collect(trimmed) | s + [y IN x WHERE NOT y IN s]) AS trimmed
