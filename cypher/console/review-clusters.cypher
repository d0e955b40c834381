// review-clusters: for a page of queued reviews, each event's identity cluster (as
// event-cluster picks it: through its account or a non-hub identifier, the largest), its size,
// and the newest confirmed_abuse mark standing on it that was made after the review was queued
// (the queue's "cluster confirmed since queued" marker). Bounded by the page ($reviews, at most
// 200) and by each cluster's list of abuse marks.
// Parameters: $tenantId, $mode, $reviews (list of {eventId, queuedAt (epoch ms)}).
// Returns one row per review whose event is in a cluster: eventId, clusterId, accounts,
//   confirmedAbuse, confirmedAt (epoch ms or null).
UNWIND $reviews AS r
MATCH (:Event {tenantId: $tenantId, mode: $mode, id: r.eventId})-[:BY|USED]->(n)-[:IN]->(c:Cluster)
WHERE NOT coalesce(n.hub, false)
WITH r, c ORDER BY c.accounts DESC, c.size DESC
WITH r, collect(c)[0] AS c
OPTIONAL MATCH (f:Feedback {tenantId: $tenantId, mode: $mode})
WHERE f.key IN coalesce(c.abuse, []) AND f.retractedAt IS NULL AND f.at > r.queuedAt
RETURN r.eventId AS eventId, c.id AS clusterId, c.accounts AS accounts, c.confirmedAbuse AS confirmedAbuse, max(f.at) AS confirmedAt
