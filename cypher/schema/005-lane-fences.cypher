// One fence node per graph-writer lane (cypher/writer/fence-lane), made by MERGE from concurrent
// writers: the constraint keeps it one.
// Parameters: none. Returns: nothing. Idempotent.
CREATE CONSTRAINT lane_fence_key IF NOT EXISTS FOR (n:LaneFence) REQUIRE n.lane IS UNIQUE;
