// One fence node per graph-writer lane of one Postgres database (cypher/writer/fence-lane), keyed
// by the lane's fence_key (graph_lane_epochs) and made by MERGE from concurrent writers: the
// constraint keeps it one. Fences keyed by the lane's number alone (before migration 0022) were
// shared by every database on this Neo4j; their constraint goes, and so do they (a writer makes
// its keyed fence at its next batch).
// Parameters: none. Returns: nothing. Idempotent.
DROP CONSTRAINT lane_fence_key IF EXISTS;
MATCH (f:LaneFence) WHERE f.key IS NULL DELETE f;
CREATE CONSTRAINT lane_fence_by_key IF NOT EXISTS FOR (n:LaneFence) REQUIRE n.key IS UNIQUE;
