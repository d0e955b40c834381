-- Up Migration
-- Every row that references an event goes with the event: each foreign key into events (a shadow
-- policy's decisions among them), and each one into a table that hangs off events (a review's
-- webhook deliveries, a delivery's attempts), cascades. A row left naming an event would fail
-- retention's DELETE of it (23503) and stop retention for every scope after that one;
-- test/lifecycle/retention.test.ts reads the catalog to keep it so for tables added later.
-- NOT VALID, then VALIDATE: the old rows already satisfy the keys; validating apart takes no lock
-- that blocks writes.
ALTER TABLE shadow_decisions DROP CONSTRAINT shadow_decisions_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT shadow_decisions_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id)
    REFERENCES events (tenant_id, mode, id) ON DELETE CASCADE NOT VALID;
ALTER TABLE shadow_decisions VALIDATE CONSTRAINT shadow_decisions_tenant_id_mode_event_id_fkey;

ALTER TABLE reviews DROP CONSTRAINT reviews_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT reviews_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id)
    REFERENCES events (tenant_id, mode, id) ON DELETE CASCADE NOT VALID;
ALTER TABLE reviews VALIDATE CONSTRAINT reviews_tenant_id_mode_event_id_fkey;

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT webhook_deliveries_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id)
    REFERENCES reviews (tenant_id, mode, event_id) ON DELETE CASCADE NOT VALID;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_tenant_id_mode_event_id_fkey;

ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey,
  ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id)
    REFERENCES webhook_deliveries (id) ON DELETE CASCADE NOT VALID;
ALTER TABLE webhook_attempts VALIDATE CONSTRAINT webhook_attempts_delivery_id_fkey;

-- Down Migration
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey,
  ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT webhook_deliveries_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id) REFERENCES reviews (tenant_id, mode, event_id);
ALTER TABLE reviews DROP CONSTRAINT reviews_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT reviews_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id) REFERENCES events (tenant_id, mode, id);
ALTER TABLE shadow_decisions DROP CONSTRAINT shadow_decisions_tenant_id_mode_event_id_fkey,
  ADD CONSTRAINT shadow_decisions_tenant_id_mode_event_id_fkey FOREIGN KEY (tenant_id, mode, event_id) REFERENCES events (tenant_id, mode, id);
