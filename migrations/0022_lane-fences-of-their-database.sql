-- Up Migration
-- Each lane's fence in Neo4j belongs to the database whose writers take the lane. The fence node
-- was keyed by the lane's number alone, so two Doorman databases on one Neo4j (`npm start`'s and
-- the tests', a staging beside a demo) shared sixteen fences: each refused the other's batches
-- by epoch and moved past them in turn, and a test that set a fence set the other's too. A key
-- made here, once per lane and database, names the lane's fence (cypher/writer/fence-lane.cypher);
-- a restored backup keeps its keys, so its fence still tells it that its epochs fell behind.
ALTER TABLE graph_lane_epochs ADD COLUMN fence_key text NOT NULL
  DEFAULT ('fence_' || replace(gen_random_uuid()::text, '-', '')) UNIQUE;

-- Down Migration
ALTER TABLE graph_lane_epochs DROP COLUMN fence_key;
