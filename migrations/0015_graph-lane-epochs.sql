-- Up Migration
-- Fencing of the graph writer's lanes. A process takes a lane with a session advisory
-- lock; when it loses that session (a network fault, a stall) another process takes the lane at
-- once, while a Neo4j transaction of the first may still be retrying. Each take of a lane raises
-- the lane's epoch here, and every Neo4j batch first checks the lane's fence node
-- (cypher/writer/fence-lane.cypher): a batch of an older epoch is refused, so a writer that lost
-- its lane can no longer write behind its successor (a link re-created after a forget).
CREATE TABLE graph_lane_epochs (
  lane   smallint PRIMARY KEY CHECK (lane BETWEEN 0 AND 15),
  epoch  bigint NOT NULL DEFAULT 0
);
INSERT INTO graph_lane_epochs (lane) SELECT generate_series(0, 15);

-- Down Migration
DROP TABLE graph_lane_epochs;
